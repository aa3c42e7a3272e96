//! [`OutOfLine`]: a future whose poll is never inlined into its caller's.
//!
//! A verb that awaits one of several big futures (a `match` over verbs)
//! otherwise gets every branch's poll inlined into its own, and with them
//! the stack temporaries each branch builds its wave state in: the caller's
//! frame holds all of them at once, whichever branch runs. On the
//! Cortex-M0 that stacked `apply_control` and `activate` to about 3 KiB at
//! N = 64. Out of line, a branch's temporaries are on the stack only while
//! that branch is polled.

use core::future::Future;
use core::pin::Pin;
use core::task::{Context, Poll};

pin_project_lite::pin_project! {
    /// `F`, polled through a function of its own.
    pub(crate) struct OutOfLine<F> {
        #[pin]
        inner: F,
    }
}

impl<F> OutOfLine<F> {
    pub(crate) fn new(inner: F) -> Self {
        Self { inner }
    }
}

impl<F: Future> Future for OutOfLine<F> {
    type Output = F::Output;

    #[inline(never)]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        self.project().inner.poll(cx)
    }
}
