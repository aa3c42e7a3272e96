use embassy_supervisor::supervisor_graph;

async fn forever() -> ! {
    core::future::pending().await
}

supervisor_graph! {
    node A = Terminate, deps: [], task: forever, cancel, exit: u8;
}

fn main() {}
