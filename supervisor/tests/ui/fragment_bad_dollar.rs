embassy_supervisor::supervisor_fragment! {
    name: BAD_FRAG;
    node A = Terminate, deps: [], task: $other::w;
}

fn main() {}
