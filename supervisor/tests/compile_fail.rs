//! One compile-fail case per DSL rule: each `.rs` under `tests/ui` must fail
//! with exactly its `.stderr` (regenerate with `TRYBUILD=overwrite`).
#![cfg(all(feature = "macros", feature = "pool"))]
#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
