//! Engine threads that are running when their create call returns.
//!
//! std's thread start-up allocates on the new thread (it copies the thread's name for the
//! stack-overflow handler), and so can the thread's first steps (its CPU meter). A create
//! call that returned before that would leave those allocations to race with whatever the
//! caller does next, for instance the runtime's allocation-free phase after `seal()`. The
//! driver's own create calls also return with their engine ready to take work.
//!
//! ```
//! let worker = sil_common::thread::spawn_started("sil-doc".into(), |ready| {
//!     ready.done(); // from here on the creating call may return
//!     7
//! })
//! .unwrap();
//! assert_eq!(worker.join().unwrap(), 7);
//! ```

use std::sync::mpsc::{SyncSender, sync_channel};
use std::thread::JoinHandle;

/// Given to an engine thread's body: [`Ready::done`] lets the creating call return. Dropping
/// it without calling `done` (an early return) does so too.
#[derive(Debug)]
pub struct Ready(SyncSender<()>);

impl Ready {
    /// The thread has finished its start-up.
    pub fn done(self) {
        // A creator that stopped waiting is not an error for the thread.
        let _ = self.0.send(());
    }
}

/// Spawn the thread `name` running `body`, and return once `body` has called
/// [`Ready::done`] (or dropped its [`Ready`]). The error is the spawn's.
pub fn spawn_started<T, F>(name: String, body: F) -> std::io::Result<JoinHandle<T>>
where
    T: Send + 'static,
    F: FnOnce(Ready) -> T + Send + 'static,
{
    // A rendezvous channel: `send` completes when the creator receives, and a dropped
    // sender ends the creator's `recv` with an error, so the creator never waits forever.
    let (tx, rx) = sync_channel(0);
    let join = std::thread::Builder::new()
        .name(name)
        .spawn(move || body(Ready(tx)))?;
    let _ = rx.recv();
    Ok(join)
}
