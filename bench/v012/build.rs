// The workload comes from the environment: see ../common/gen.rs.
include!("../common/gen.rs");

fn main() {
    generate(false);
}
