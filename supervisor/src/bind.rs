//! [`TaskNode::bind`]: attributing a spawned task to its node, for the
//! features that name tasks (`trace`, `metadata-names`). Defined above both
//! `node` and `trace`, so `node` imports nothing from `trace`.

use embassy_executor::SpawnToken;

use crate::TaskNode;

impl TaskNode {
    /// Attribute the task behind `token` to this node: under `trace` its
    /// polls are charged to the node, under `metadata-names` the task's
    /// metadata carries the node's name. The generated spawn glue calls it;
    /// a hand-written spawn fn should call it before `Spawner::spawn`.
    /// Without those features it compiles to nothing.
    ///
    /// ```
    /// use embassy_executor::{SpawnError, Spawner};
    /// use embassy_supervisor::TaskNode;
    ///
    /// #[embassy_executor::task(pool_size = 4)]
    /// async fn worker(node: &'static TaskNode) {
    ///     let _ = node.run_cancellable_acked(core::future::pending::<()>()).await;
    ///     node.mark_exited();
    /// }
    ///
    /// // A `SpawnFn` for every node that runs `worker`.
    /// fn spawn_worker(node: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    ///     let token = worker(node)?;
    ///     node.bind(&token);
    ///     s.spawn(token);
    ///     Ok(())
    /// }
    /// ```
    #[inline]
    pub fn bind<S>(&'static self, token: &SpawnToken<S>) {
        #[cfg(feature = "trace")]
        crate::trace::bind(self, token.id());
        #[cfg(feature = "metadata-names")]
        token.metadata().set_name(self.spec().name);
        let _ = token;
    }
}
