//! `__trace_hooks!()`: what `supervisor_graph!` emits for the unnamed graph,
//! defined by feature: the seven hook symbols under `trace-hooks`, nothing
//! otherwise. A `macro_rules!` of this crate rather than a proc-macro branch,
//! so the macro crate needs no feature of its own for it.

/// Define the seven `_embassy_trace_*` hook symbols, forwarding to the
/// recorders. `supervisor_graph!` invokes it for the unnamed graph under
/// `trace-hooks`; exactly one set may exist per binary.
#[cfg(feature = "trace-hooks")]
#[doc(hidden)]
#[macro_export]
macro_rules! __trace_hooks {
    () => {
        #[unsafe(no_mangle)]
        fn _embassy_trace_poll_start(executor_id: u32) {
            $crate::trace::on_poll_start(executor_id)
        }
        #[unsafe(no_mangle)]
        fn _embassy_trace_task_new(executor_id: u32, task_id: u32) {
            $crate::trace::on_task_new(executor_id, task_id)
        }
        #[unsafe(no_mangle)]
        fn _embassy_trace_task_end(executor_id: u32, task_id: u32) {
            $crate::trace::on_task_end(executor_id, task_id)
        }
        #[unsafe(no_mangle)]
        fn _embassy_trace_task_exec_begin(executor_id: u32, task_id: u32) {
            $crate::trace::on_task_exec_begin(executor_id, task_id)
        }
        #[unsafe(no_mangle)]
        fn _embassy_trace_task_exec_end(executor_id: u32, task_id: u32) {
            $crate::trace::on_task_exec_end(executor_id, task_id)
        }
        #[unsafe(no_mangle)]
        fn _embassy_trace_task_ready_begin(executor_id: u32, task_id: u32) {
            $crate::trace::on_task_ready_begin(executor_id, task_id)
        }
        #[unsafe(no_mangle)]
        fn _embassy_trace_executor_idle(executor_id: u32) {
            $crate::trace::on_executor_idle(executor_id)
        }
    };
}

/// Without `trace-hooks` the graph declares no hook symbols.
#[cfg(not(feature = "trace-hooks"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __trace_hooks {
    () => {};
}
