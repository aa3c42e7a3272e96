//! Stand-in workers for the nodes of a graph under test: they follow the
//! lifecycle protocol, log what they do and honour injected faults.

use embassy_executor::{SpawnError, Spawner};
use embassy_supervisor::{Mode, TaskNode};

use crate::fault;
use crate::log::{Event, record};

/// A plain worker for a `task:` clause: serves until stopped and acks (a
/// `Pause` node parks and is resumed in place, any number of times). Logs
/// `Started`, `Acked`, `Resumed`; honours [`fault::ignore_stop`].
pub async fn serve(node: &'static TaskNode) {
    record(node, Event::Started);
    if node.mode() == Mode::Pause {
        loop {
            node.wait_shutdown().await;
            fault::before_ack(node).await;
            record(node, Event::Acked);
            node.ack_dropped();
            node.wait_resume().await;
            record(node, Event::Resumed);
        }
    }
    if node
        .run_cancellable(core::future::pending::<()>())
        .await
        .is_err()
    {
        fault::before_ack(node).await;
        record(node, Event::Acked);
        node.ack_dropped();
    }
}

/// [`serve`] as an embassy task that records its exit: what
/// [`spawn_worker`] spawns. With feature `fault-inject` it runs `serve`
/// through `TaskNode::with_faults`, as a generated shell does, so a fault
/// injected into the node is acted out (a crash logs [`Event::Crashed`]);
/// mark its spec `NodeSpec::with_fault_shell()` to allow the injection.
#[embassy_executor::task(pool_size = 32)]
pub async fn worker(node: &'static TaskNode) {
    #[cfg(feature = "fault-inject")]
    if node.with_faults(serve(node)).await.is_err() {
        record(node, Event::Crashed);
    }
    #[cfg(not(feature = "fault-inject"))]
    serve(node).await;
    node.mark_exited();
}

/// A [`SpawnFn`](embassy_supervisor::SpawnFn) for hand-built graphs: spawns
/// [`worker`] for the node. Logs `Spawned` or `Refused`; honours
/// [`fault::refuse_spawn`].
pub fn spawn_worker(node: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    fault::spawn_allowed(node)?;
    let token = match worker(node) {
        Ok(token) => token,
        Err(e) => {
            record(node, Event::Refused);
            return Err(e);
        }
    };
    node.bind(&token); // trace attribution; nothing without `trace`
    record(node, Event::Spawned);
    s.spawn(token);
    Ok(())
}
