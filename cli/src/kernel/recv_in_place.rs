//! A socket's receive polled where its blocking wait cannot starve the task
//! it waits for. zeromq 0.6 forgets a disconnected peer inside the receive's
//! poll, with scc's blocking `remove_sync`. The bucket lock that waits for
//! can be handed to a task this tokio worker has just woken: our reply's send
//! released it to a connecting peer's registration, which then waits in the
//! worker's LIFO slot, where no other worker steals it. The worker then waits
//! for itself for ever, and the shell channel with it (as a kernel under a
//! JupyterLab that reconnected was seen to). `block_in_place` hands the
//! worker's tasks to another thread for the length of each poll (the forked
//! `Connection::recv` calls this through [`super::gone_clients::receive`]).

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

/// `receive`, each poll of it run by [`tokio::task::block_in_place`].
pub(crate) fn polled_in_place<F: Future + Unpin>(receive: F) -> InPlace<F> {
    InPlace(receive)
}

/// See [`polled_in_place`].
pub(crate) struct InPlace<F>(F);

impl<F: Future + Unpin> Future for InPlace<F> {
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let receive = &mut self.0;
        tokio::task::block_in_place(|| Pin::new(receive).poll(cx))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// The hazard without zeromq: a task wakes another (into its worker's
    /// LIFO slot), then blocks until that one has run. Whether it ends
    /// within `limit`.
    fn wakes_then_blocks(in_place: bool, limit: Duration) -> bool {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let (done, finished) = std::sync::mpsc::channel();
        runtime.spawn(async move {
            let (wake, woken) = tokio::sync::oneshot::channel::<()>();
            let (ran, has_run) = std::sync::mpsc::channel::<()>();
            tokio::spawn(async move {
                woken.await.unwrap();
                ran.send(()).unwrap();
            });
            tokio::task::yield_now().await;
            // The wake comes first, from this worker, as a reply's send
            // releases zeromq's lock before the next receive blocks on it.
            wake.send(()).unwrap();
            if in_place {
                polled_in_place(Box::pin(async move { has_run.recv().unwrap() })).await;
            } else {
                has_run.recv().unwrap();
            }
            done.send(()).unwrap();
        });
        let ended = finished.recv_timeout(limit).is_ok();
        runtime.shutdown_background();
        ended
    }

    #[test]
    fn a_task_woken_before_a_blocking_wait_runs_when_the_wait_is_polled_in_place() {
        assert!(wakes_then_blocks(true, Duration::from_secs(60)));
    }

    /// What the test above guards against is real on this tokio: the
    /// other worker is idle and still cannot run the woken task. (Its
    /// blocked worker thread is left behind.)
    #[test]
    fn a_task_woken_before_a_blocking_wait_starves_without_it() {
        assert!(!wakes_then_blocks(false, Duration::from_secs(3)));
    }
}
