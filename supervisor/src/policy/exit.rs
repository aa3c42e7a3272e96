//! What a worker's `exit:` value says about how it ended.

/// Classifies a worker's `exit:` value for `restart: on_failure`: `true`
/// is a failure (the driver restarts the node), `false` a normal end.
///
/// `()` is a normal exit and `Result` is a failure when `Err`. Implement it
/// for your own exit type:
///
/// ```
/// use embassy_supervisor::ExitStatus;
/// enum Link { Closed, Lost }
/// impl ExitStatus for Link {
///     fn is_failure(&self) -> bool {
///         matches!(self, Link::Lost)
///     }
/// }
/// assert!(Link::Lost.is_failure() && !Link::Closed.is_failure());
/// ```
#[diagnostic::on_unimplemented(
    message = "`restart:` needs to tell a failure from a normal exit of `{Self}`",
    label = "this `exit:` type does not implement `ExitStatus`",
    note = "implement `embassy_supervisor::ExitStatus` for it (`()` and `Result` do)"
)]
pub trait ExitStatus {
    /// The instance that returned this value failed.
    fn is_failure(&self) -> bool;
}

impl ExitStatus for () {
    fn is_failure(&self) -> bool {
        false
    }
}

impl<T, E> ExitStatus for Result<T, E> {
    fn is_failure(&self) -> bool {
        self.is_err()
    }
}

impl ExitStatus for core::convert::Infallible {
    fn is_failure(&self) -> bool {
        match *self {}
    }
}
