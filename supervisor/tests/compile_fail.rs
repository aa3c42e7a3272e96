//! One compile-fail case per DSL rule: each `.rs` under `tests/ui` must fail
//! with exactly its `.stderr` (regenerate with `TRYBUILD=overwrite`). Cases
//! whose outcome depends on an opt-in feature live in a subdirectory run only
//! with (or only without) that feature: trybuild builds them with the
//! features this test binary has.
#![cfg(feature = "macros")]
#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    #[cfg(feature = "pool")]
    t.compile_fail("tests/ui/*.rs");
    #[cfg(not(feature = "pool"))]
    t.compile_fail("tests/ui/no_pool/*.rs");
    #[cfg(not(feature = "readiness"))]
    t.compile_fail("tests/ui/no_readiness/*.rs");
    #[cfg(feature = "liveness")]
    t.compile_fail("tests/ui/liveness/*.rs");
    #[cfg(not(feature = "liveness"))]
    t.compile_fail("tests/ui/no_liveness/*.rs");
    #[cfg(feature = "restart")]
    t.compile_fail("tests/ui/restart/*.rs");
    #[cfg(not(feature = "restart"))]
    t.compile_fail("tests/ui/no_restart/*.rs");
    #[cfg(not(feature = "fault-inject"))]
    t.compile_fail("tests/ui/no_fault_inject/*.rs");
    #[cfg(not(feature = "enabled-if"))]
    t.compile_fail("tests/ui/no_enabled_if/*.rs");
    #[cfg(feature = "local-resources")]
    t.compile_fail("tests/ui/local_resources/*.rs");
    #[cfg(not(feature = "local-resources"))]
    t.compile_fail("tests/ui/no_local_resources/*.rs");
    #[cfg(feature = "dataflow")]
    t.compile_fail("tests/ui/dataflow/*.rs");
    #[cfg(all(feature = "dataflow", feature = "pool"))]
    t.compile_fail("tests/ui/dataflow_pool/*.rs");
    #[cfg(all(feature = "dataflow", not(feature = "readiness")))]
    t.compile_fail("tests/ui/dataflow_no_readiness/*.rs");
    #[cfg(not(feature = "dataflow"))]
    t.compile_fail("tests/ui/no_dataflow/*.rs");
    #[cfg(feature = "heap-state")]
    t.compile_fail("tests/ui/heap_state/*.rs");
    #[cfg(not(feature = "heap-state"))]
    t.compile_fail("tests/ui/no_heap_state/*.rs");
}
