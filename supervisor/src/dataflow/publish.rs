//! [`Publish`]: the one-call write [`TaskNode::publish`](crate::TaskNode::publish)
//! makes, implemented for the embassy-sync primitives and the atomics.

use core::sync::atomic::{
    AtomicBool, AtomicI8, AtomicI16, AtomicI32, AtomicIsize, AtomicU8, AtomicU16, AtomicU32,
    AtomicUsize, Ordering,
};

use embassy_sync::blocking_mutex::raw::RawMutex;
use embassy_sync::channel::{Channel, TrySendError};
use embassy_sync::pubsub::PubSubChannel;
use embassy_sync::signal::Signal;
use embassy_sync::watch::Watch;

/// A signal a value can be written into without waiting.
///
/// Implemented for embassy-sync's `Signal` (`signal`), `Watch` (its sender's
/// `send`), `PubSubChannel` (`publish_immediate`: the oldest message makes
/// room), `Channel` (`try_send`: the outcome says whether it was full) and
/// the `core` atomics (a `Release` store). A write that must wait (a
/// `Channel::send(v).await` with backpressure) goes through
/// [`TaskNode::writer`](crate::TaskNode::writer) instead. Implement it for
/// your own signal type in one method.
pub trait Publish {
    /// What is written.
    type Value;
    /// What the write reports (`()` for the kinds that cannot refuse).
    type Outcome;
    /// Write `value` now.
    fn publish(&self, value: Self::Value) -> Self::Outcome;
}

impl<M: RawMutex, T: Send> Publish for Signal<M, T> {
    type Value = T;
    type Outcome = ();
    fn publish(&self, value: T) {
        self.signal(value);
    }
}

impl<M: RawMutex, T: Clone, const N: usize> Publish for Watch<M, T, N> {
    type Value = T;
    type Outcome = ();
    fn publish(&self, value: T) {
        self.sender().send(value);
    }
}

impl<M: RawMutex, T: Clone, const CAP: usize, const SUBS: usize, const PUBS: usize> Publish
    for PubSubChannel<M, T, CAP, SUBS, PUBS>
{
    type Value = T;
    type Outcome = ();
    fn publish(&self, value: T) {
        self.immediate_publisher().publish_immediate(value);
    }
}

impl<M: RawMutex, T, const N: usize> Publish for Channel<M, T, N> {
    type Value = T;
    type Outcome = Result<(), TrySendError<T>>;
    fn publish(&self, value: T) -> Self::Outcome {
        self.try_send(value)
    }
}

macro_rules! atomic_publish {
    ($($atomic:ty => $value:ty),* $(,)?) => {$(
        impl Publish for $atomic {
            type Value = $value;
            type Outcome = ();
            fn publish(&self, value: $value) {
                self.store(value, Ordering::Release);
            }
        }
    )*};
}

atomic_publish! {
    AtomicBool => bool,
    AtomicU8 => u8,
    AtomicU16 => u16,
    AtomicU32 => u32,
    AtomicUsize => usize,
    AtomicI8 => i8,
    AtomicI16 => i16,
    AtomicI32 => i32,
    AtomicIsize => isize,
}
