//! Pre-spawn gates: [`ResourceSlot`] moves owned values (peripherals, driver
//! handles, exit values) between `main`, the spawn glue and tasks;
//! [`SpawnerSlot`] publishes another executor's spawner. The supervisor awaits
//! every gate of a node (bounded) before spawning it.

use core::cell::{Cell, RefCell};
use core::ops::{Deref, DerefMut};

use embassy_executor::SendSpawner;
use embassy_sync::blocking_mutex::Mutex;
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;

use crate::notify;

/// Something a spawn must wait for: a filled resource slot, a published
/// executor spawner.
pub trait Gate: Sync {
    /// True once the spawn can proceed.
    fn is_filled(&self) -> bool;

    /// True for an executor's spawner slot: a spawn that times out on it
    /// reports [`FaultKind::ExecutorUnpublished`](crate::FaultKind::ExecutorUnpublished)
    /// rather than [`ResourceEmpty`](crate::FaultKind::ResourceEmpty).
    fn is_executor_slot(&self) -> bool {
        false
    }
}

/// A slot a provider node fills ([`NodeSpec::with_provides`](crate::NodeSpec::with_provides)):
/// emptied when the provider's instance ends.
pub trait Provided: Sync {
    /// Empty the slot, dropping its value.
    fn withdraw(&self);
}

/// A one-value mailbox for an owned value, shared between `main`, generated
/// spawn glue and tasks.
///
/// ```
/// use embassy_supervisor::ResourceSlot;
/// static LED: ResourceSlot<u8> = ResourceSlot::new();
/// LED.provide(25);
/// assert_eq!(LED.get(), Some(25));
/// assert_eq!(LED.take(), Some(25));
/// assert_eq!(LED.take(), None);
/// ```
pub struct ResourceSlot<T> {
    value: Mutex<CriticalSectionRawMutex, RefCell<Option<T>>>,
}

impl<T> ResourceSlot<T> {
    /// An empty slot.
    pub const fn new() -> Self {
        Self {
            value: Mutex::new(RefCell::new(None)),
        }
    }

    /// Fill the slot. A value already there is replaced and dropped (a slot is
    /// a mailbox, not a log).
    pub fn provide(&self, value: T) {
        let old = self.value.lock(|v| v.borrow_mut().replace(value));
        drop(old);
        notify::changed();
    }

    /// Give a borrowed value back; the same as [`provide`](Self::provide).
    pub fn restore(&self, value: T) {
        self.provide(value)
    }

    /// Fill the slot without telling anyone (no change notification): for a
    /// slot nothing waits on, such as the spawn glue's hand-over of a
    /// node's resources to its resident task shell. A gate or waiter on the
    /// slot would not see the value before the next change.
    pub fn hand_over(&self, value: T) {
        let old = self.value.lock(|v| v.borrow_mut().replace(value));
        drop(old);
    }

    /// Empty the slot, returning its value.
    pub fn take(&self) -> Option<T> {
        self.value.lock(|v| v.borrow_mut().take())
    }

    /// Empty the slot, dropping its value (a provider that stopped: its
    /// handle is stale). Nothing waits for an empty slot, so no one is woken.
    pub fn clear(&self) {
        drop(self.take());
    }

    /// Wait until the slot is filled, then take the value.
    pub async fn wait_take(&self) -> T {
        notify::wait_for(|| self.take()).await
    }

    /// True if the slot holds a value.
    pub fn is_filled(&self) -> bool {
        self.value.lock(|v| v.borrow().is_some())
    }

    /// Take the value as a [`Lent`] guard that puts it back when dropped.
    /// This is what makes spawn glue transactional: a spawn that fails drops
    /// its arguments, and a dropped `Lent` restores its value.
    pub fn lend(&'static self) -> Option<Lent<T>> {
        self.take().map(|value| Lent {
            slot: self,
            value: Some(value),
        })
    }
}

impl<T: Copy> ResourceSlot<T> {
    /// Copy the value out, leaving the slot filled.
    pub fn get(&self) -> Option<T> {
        self.value.lock(|v| *v.borrow())
    }
}

impl<T> Default for ResourceSlot<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Send> Provided for ResourceSlot<T> {
    fn withdraw(&self) {
        self.clear();
    }
}

impl<T: Send> Gate for ResourceSlot<T> {
    fn is_filled(&self) -> bool {
        ResourceSlot::is_filled(self)
    }
}

/// A value taken from a [`ResourceSlot`], returned to it on drop unless
/// [`into_inner`](Lent::into_inner) keeps it.
pub struct Lent<T: 'static> {
    slot: &'static ResourceSlot<T>,
    value: Option<T>,
}

impl<T> Lent<T> {
    /// Keep the value: the slot stays empty (the `consume` kind).
    pub fn into_inner(mut self) -> T {
        match self.value.take() {
            Some(v) => v,
            // `value` is only `None` after `into_inner` consumed `self`.
            None => unreachable!(),
        }
    }
}

impl<T> Deref for Lent<T> {
    type Target = T;
    fn deref(&self) -> &T {
        match &self.value {
            Some(v) => v,
            None => unreachable!(),
        }
    }
}

impl<T> DerefMut for Lent<T> {
    fn deref_mut(&mut self) -> &mut T {
        match &mut self.value {
            Some(v) => v,
            None => unreachable!(),
        }
    }
}

impl<T> Drop for Lent<T> {
    fn drop(&mut self) {
        if let Some(v) = self.value.take() {
            self.slot.restore(v);
        }
    }
}

/// A runtime-filled spawner for an `executor:` tier (an interrupt executor or
/// another core). Nodes routed through it wait for it before spawning.
pub struct SpawnerSlot {
    spawner: Mutex<CriticalSectionRawMutex, Cell<Option<SendSpawner>>>,
}

impl SpawnerSlot {
    /// An empty slot.
    pub const fn new() -> Self {
        Self {
            spawner: Mutex::new(Cell::new(None)),
        }
    }

    /// Publish the executor's spawner.
    pub fn set(&self, spawner: SendSpawner) {
        self.spawner.lock(|s| s.set(Some(spawner)));
        notify::changed();
    }

    /// The published spawner, if any.
    pub fn get(&self) -> Option<SendSpawner> {
        self.spawner.lock(Cell::get)
    }
}

impl Default for SpawnerSlot {
    fn default() -> Self {
        Self::new()
    }
}

impl Gate for SpawnerSlot {
    fn is_filled(&self) -> bool {
        self.get().is_some()
    }

    fn is_executor_slot(&self) -> bool {
        true
    }
}
