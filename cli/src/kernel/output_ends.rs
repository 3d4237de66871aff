//! Which cell's output the server has sent on: the end marks the cell
//! process writes on both streams after each cell
//! ([`crate::engine::cell_process::end_of_output`]), so that a cell's reply waits
//! until everything it printed has gone out before it.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;

use crate::engine::cell_process::end_of_output;

/// The run number of the last end mark sent on, on each stream.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Sent {
    stdout: u64,
    stderr: u64,
}

/// The end marks the output thread has passed, shared with the thread that
/// sends the cells' replies.
#[derive(Clone)]
pub(crate) struct OutputEnds {
    sent: Arc<watch::Sender<Sent>>,
}

impl Default for OutputEnds {
    fn default() -> OutputEnds {
        OutputEnds {
            sent: Arc::new(watch::channel(Sent::default()).0),
        }
    }
}

impl OutputEnds {
    /// On the output thread, in the order the lines are sent: whether `line`
    /// of stream `name` is an end mark, which is noted and not sent.
    pub fn passed(&self, name: &str, line: &str) -> bool {
        let Some(run) = end_of_output(line) else {
            return false;
        };
        self.sent.send_modify(|sent| match name {
            "stderr" => sent.stderr = run,
            _ => sent.stdout = run,
        });
        true
    }

    /// Waits until both streams' end marks of cell run `run` have passed
    /// (every line before them has been sent), for at most `within`.
    /// False if they had not by then.
    pub async fn wait(&self, run: u64, within: Duration) -> bool {
        let mut sent = self.sent.subscribe();
        let ended = sent.wait_for(|s| s.stdout == run && s.stderr == run);
        let waited = tokio::time::timeout(within, ended).await;
        matches!(waited, Ok(Ok(_)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mark(run: u64) -> String {
        format!("PUZZLEBOOK_END_OF_CELL_OUTPUT {run}")
    }

    #[test]
    fn a_reply_waits_for_both_streams_of_its_own_run() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        runtime.block_on(both_streams_of_its_own_run());
    }

    async fn both_streams_of_its_own_run() {
        let ends = OutputEnds::default();
        assert!(!ends.passed("stdout", "a line the cell printed"));
        assert!(ends.passed("stdout", &mark(1)));
        // Standard error's mark has not passed: the wait ends unmet.
        assert!(!ends.wait(1, Duration::from_millis(50)).await);
        let waiting = {
            let ends = ends.clone();
            tokio::spawn(async move { ends.wait(1, Duration::from_secs(30)).await })
        };
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!waiting.is_finished());
        assert!(ends.passed("stderr", &mark(1)));
        assert!(waiting.await.unwrap());
        // An earlier run's marks do not end a later run's wait.
        assert!(!ends.wait(2, Duration::from_millis(50)).await);
        // A new cell process numbers its runs from 1 again.
        ends.passed("stdout", &mark(1));
        assert!(ends.wait(1, Duration::from_millis(50)).await);
    }
}
