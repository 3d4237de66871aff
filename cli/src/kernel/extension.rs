//! puzzlebook's additions to the forked Jupyter server, each called from a
//! one-line hook marked `puzzlebook:` in `core.rs`, so that moving to a newer
//! evcxr_jupyter is a rebase: waiting for the crate's load ([`super::loading`]),
//! pinning versions before a `:dep`, the Z3 hints ([`crate::engine::hints`]), a cell
//! whose `?` returned an error or that panicked, a panic in the engine, a
//! cell's output sent before its reply ([`super::output_ends`]),
//! replaying the session after the cell process ended
//! ([`crate::kernel::replay`]), the session's history ([`super::history`],
//! for [`super::requests`]), and an interrupt that stops Z3 and keeps the
//! session.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use anyhow::Result;
use evcxr::CommandContext;
use tokio::sync::mpsc::UnboundedSender;
use tokio::sync::Mutex;

use super::history::History;
use super::jupyter::connection::Connection;
use super::jupyter::jupyter_message::JupyterMessage;
use super::loading::{BeforeDep, BeforeLoad, LoadState, Loading, NotLoaded, LOADING_NOTE};
use super::output_ends::OutputEnds;
use crate::engine::cell_process::{take_ran, CellMark, END_WAIT};
use crate::engine::hints::Z3Watch;
use crate::kernel::locks::lock;
use crate::kernel::replay;
use crate::kernel::Engine;

/// How long an interrupted cell has to end after its SIGINT, before the
/// server ends the process that runs cells.
pub const INTERRUPT_GRACE: Duration = Duration::from_secs(3);

/// What the kernel runs around the server's own work.
pub(crate) struct Hooks {
    /// On the loading thread, before the crate is loaded.
    pub before_load: BeforeLoad,
    /// Before each cell that has a `:dep` command.
    pub before_dep: BeforeDep,
}

/// What the session has run: the Z3 values its variables hold, and the cells
/// that succeeded, to run again after a crash.
struct Cells {
    z3: Z3Watch,
    session: replay::Session,
}

impl Default for Cells {
    /// Before the first cell: the kernelspec's `init.evcxr` has loaded the
    /// crate, with its shared Z3 when `kernel install` wrote it.
    fn default() -> Cells {
        let init = std::env::var_os("EVCXR_CONFIG_DIR")
            .map(|dir| std::path::PathBuf::from(dir).join("init.evcxr"))
            .and_then(|path| std::fs::read_to_string(path).ok())
            .unwrap_or_default();
        Cells {
            z3: Z3Watch::after_init(&init),
            session: replay::Session::default(),
        }
    }
}

/// The server's channel for output.
type Iopub = Arc<Mutex<Connection<zeromq::PubSocket>>>;

/// puzzlebook's state in the server.
#[derive(Clone)]
pub(crate) struct Extension {
    /// Set by [`Extension::start`].
    started: Arc<OnceLock<Started>>,
    /// Taken by [`Extension::start`].
    before_load: Arc<std::sync::Mutex<Option<BeforeLoad>>>,
    /// An interrupt that arrived while a cell waited for the load.
    wait_interrupted: Arc<AtomicBool>,
    before_dep: BeforeDep,
    /// While set, what cells print is not sent (a replay's).
    muted: Arc<AtomicBool>,
    /// The cells' end marks the output thread has passed.
    ends: OutputEnds,
    cells: Arc<std::sync::Mutex<Cells>>,
    /// Every cell the session was asked to run, for `history_request`.
    history: Arc<std::sync::Mutex<History>>,
    /// How many cells have started in the engine, and how many have ended:
    /// a cell runs while they differ. (A flag could not tell the cell an
    /// interrupt was for from the next one.)
    started_cells: Arc<AtomicU64>,
    ended_cells: Arc<AtomicU64>,
    /// Set when an interrupt stopped the running cell through Z3.
    interrupted: Arc<AtomicBool>,
}

/// What the server hands over once its engine exists.
struct Started {
    iopub: Iopub,
    engine: Engine,
    loading: Loading,
}

/// What the engine's thread hands back for a cell: its result and request.
type Joined<M> = std::result::Result<
    (std::result::Result<evcxr::EvalOutputs, evcxr::Error>, M),
    tokio::task::JoinError,
>;

impl Extension {
    /// puzzlebook's part of a new server, before its engine exists.
    pub fn new(hooks: Hooks) -> Extension {
        Extension {
            started: Arc::default(),
            before_load: Arc::new(std::sync::Mutex::new(Some(hooks.before_load))),
            wait_interrupted: Arc::new(AtomicBool::new(false)),
            before_dep: hooks.before_dep,
            muted: Arc::new(AtomicBool::new(false)),
            ends: OutputEnds::default(),
            cells: Arc::default(),
            history: Arc::default(),
            started_cells: Arc::default(),
            ended_cells: Arc::default(),
            interrupted: Arc::default(),
        }
    }

    /// Starts loading the crate into `engine` in the background; the server
    /// answers meanwhile. Once: a second call does nothing.
    pub fn start(&self, engine: &Engine, iopub: &Iopub) {
        let Some(before_load) = lock(&self.before_load).take() else {
            return;
        };
        let started = Started {
            iopub: Arc::clone(iopub),
            engine: Arc::clone(engine),
            loading: Loading::start(Arc::clone(engine), before_load),
        };
        let _ = self.started.set(started);
    }

    fn started(&self) -> &Started {
        self.started
            .get()
            .expect("the server starts the extension before it serves requests")
    }

    fn iopub(&self) -> &Iopub {
        &self.started().iopub
    }

    /// On the engine's thread: the engine for the cell `code`, its lock
    /// taken even after a panic in a request that held it, and versions
    /// pinned first when the cell has a `:dep` (which may make cargo resolve
    /// them again).
    pub fn engine<'e>(
        &self,
        engine: &'e Engine,
        code: &str,
    ) -> std::sync::MutexGuard<'e, CommandContext> {
        let guard = lock(engine);
        // Counted before anything here can panic: `after_cell` counts the
        // cell's end even then.
        self.started_cells.fetch_add(1, Ordering::SeqCst);
        self.interrupted.store(false, Ordering::SeqCst);
        self.before_cell(code);
        guard
    }

    /// After the engine's thread returned from a cell (`joined`): its output
    /// sent first ([`Self::output_sent`]); then a panic of the engine
    /// ([`Self::survive_panic`]) or a cell that panicked or whose `?` failed
    /// ([`Self::marked_failure`]) gets its error reply here and `None`; any
    /// other cell's result goes back to the server.
    pub async fn after_cell(
        &self,
        joined: Joined<JupyterMessage>,
        request: &JupyterMessage,
        execution_count: u32,
        replies: &UnboundedSender<JupyterMessage>,
    ) -> Result<
        Option<(
            std::result::Result<evcxr::EvalOutputs, evcxr::Error>,
            JupyterMessage,
        )>,
    > {
        self.ended_cells.fetch_add(1, Ordering::SeqCst);
        let joined = self.output_sent(joined).await;
        let Some((result, message)) = self
            .survive_panic(joined, request, execution_count, replies)
            .await?
        else {
            return Ok(None);
        };
        let Some(result) = self
            .stopped_by_interrupt(result, &message, execution_count, replies)
            .await?
        else {
            return Ok(None);
        };
        Ok(self
            .marked_failure(result, &message, execution_count, replies)
            .await?
            .map(|result| (result, message)))
    }

    /// Sends `text` as stream output `name` of `message`'s cell.
    async fn send_stream(&self, message: &JupyterMessage, name: &str, text: String) -> Result<()> {
        message
            .new_message("stream")
            .with_content(object! {"name" => name, "text" => text})
            .send(&mut *self.iopub().lock().await)
            .await?;
        Ok(())
    }

    /// Before a cell runs: notes it in the history, then waits until the
    /// crate is loaded, saying so every ten seconds on the cell's standard
    /// error. False, after an error reply, when an interrupt ended the wait
    /// or the load failed.
    pub async fn ready(
        &self,
        message: &JupyterMessage,
        execution_count: u32,
        replies: &UnboundedSender<JupyterMessage>,
    ) -> Result<bool> {
        let content = message.get_content();
        if content["store_history"].as_bool() != Some(false)
            && content["silent"].as_bool() != Some(true)
        {
            lock(&self.history).record(execution_count, message.code());
        }
        match self.wait_for_load(message).await? {
            Ok(()) => Ok(true),
            Err(why) => {
                let (ename, evalue) = why.error();
                self.reply_error(message, execution_count, ename, evalue, replies)
                    .await?;
                Ok(false)
            }
        }
    }

    async fn wait_for_load(&self, message: &JupyterMessage) -> Result<Result<(), NotLoaded>> {
        self.wait_interrupted.store(false, Ordering::SeqCst);
        let mut next_note = Instant::now();
        let loading = &self.started().loading;
        loop {
            match loading.state() {
                LoadState::Done => return Ok(Ok(())),
                LoadState::Failed(e) => return Ok(Err(NotLoaded::Failed(e))),
                LoadState::Running => {}
            }
            if self.wait_interrupted.swap(false, Ordering::SeqCst) {
                return Ok(Err(NotLoaded::Interrupted));
            }
            if Instant::now() >= next_note {
                let secs = loading.started.elapsed().as_secs();
                self.send_stream(
                    message,
                    "stderr",
                    format!("{LOADING_NOTE} {secs} s so far\n"),
                )
                .await?;
                next_note = Instant::now() + Duration::from_secs(10);
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    /// Our reply to a shell request the server leaves unanswered
    /// ([`super::requests`]), or `None` for the server's own handling.
    pub fn shell_reply(&self, message: &JupyterMessage) -> Option<JupyterMessage> {
        super::requests::shell_reply(message, &lock(&self.history))
    }

    /// An interrupt, answered here (true) or by the server ending the
    /// process that runs cells, as upstream does (false):
    /// - while the crate loads, no cell runs in the engine, so it stops the
    ///   waiting cell and leaves the load alone;
    /// - while no cell runs, there is nothing to stop, and the session stays;
    /// - while a cell runs, the cell process gets SIGINT, as a terminal's
    ///   Ctrl-C would send it. Z3 catches it while it checks (its `ctrl_c`
    ///   parameter, on by default), stops and returns `unknown`, and the
    ///   session and its variables stay. Outside Z3 the signal ends the
    ///   process, and the replay brings the variables back. Either way the
    ///   cell ends, and this is true; a process that outlives
    ///   [`INTERRUPT_GRACE`] (SIGINT blocked) makes it false.
    pub async fn interrupt(&self, process: &std::sync::Mutex<std::process::Child>) -> bool {
        if self.started().loading.state() == LoadState::Running {
            self.wait_interrupted.store(true, Ordering::SeqCst);
            return true;
        }
        let cell = self.started_cells.load(Ordering::SeqCst);
        let ended = || self.ended_cells.load(Ordering::SeqCst) >= cell;
        if ended() {
            return true;
        }
        let pid = lock(process).id();
        self.interrupted.store(true, Ordering::SeqCst);
        // SAFETY: kill(2) with a pid and a signal number.
        unsafe { libc::kill(pid as libc::pid_t, libc::SIGINT) };
        let deadline = Instant::now() + INTERRUPT_GRACE;
        while Instant::now() < deadline {
            if ended() {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        false
    }

    /// A cell that an interrupt stopped through Z3 (its process lives on):
    /// an error reply that says so, whatever the cell did after its check
    /// returned `unknown`, and `None`; any other cell's `result` as it is.
    async fn stopped_by_interrupt(
        &self,
        result: std::result::Result<evcxr::EvalOutputs, evcxr::Error>,
        message: &JupyterMessage,
        execution_count: u32,
        replies: &UnboundedSender<JupyterMessage>,
    ) -> Result<Option<std::result::Result<evcxr::EvalOutputs, evcxr::Error>>> {
        if !self.interrupted.swap(false, Ordering::SeqCst) {
            return Ok(Some(result));
        }
        let Ok(mut outputs) = result else {
            // The process ended after all: the server's error, and the replay.
            return Ok(Some(result));
        };
        let _ = CellMark::take(&mut outputs);
        self.reply_error(
            message,
            execution_count,
            "Interrupted",
            "the cell was interrupted: Z3 stopped its work, and the rest of the cell ran with what Z3 had (`unknown`); the session and its variables are kept (this cell is not among those run again if the process crashes later)".to_string(),
            replies,
        )
        .await?;
        Ok(None)
    }

    /// On the engine's thread, before the cell `code` runs: a `:dep` may make
    /// cargo resolve versions again, so they are pinned first.
    fn before_cell(&self, code: &str) {
        if crate::engine::has_dep_line(code) {
            (self.before_dep)();
        }
    }

    /// On the output thread, for each line a cell printed on stream `name`:
    /// whether it is held back from the stream, as a cell's end mark is
    /// (noted, for [`Extension::output_sent`]), all a replay prints is, and a
    /// display or a clear is, which goes out as its own message for the
    /// cell's `request` ([`super::shown`]).
    pub async fn held(
        &self,
        name: &str,
        line: &str,
        request: &Mutex<Option<JupyterMessage>>,
    ) -> bool {
        if self.ends.passed(name, line) || self.muted.load(Ordering::SeqCst) {
            return true;
        }
        let Some(message) = request
            .lock()
            .await
            .as_ref()
            .and_then(|request| super::shown::message(name, line, request))
        else {
            return false;
        };
        if let Err(error) = message.send(&mut *self.iopub().lock().await).await {
            eprintln!("puzzlebook: a display could not be sent: {error}");
        }
        true
    }

    /// After the engine returned from a cell that ran in the cell process:
    /// waits until everything the cell printed has been sent, on both
    /// streams, so that its result and reply come after it (evcxr returns
    /// once it has read the cell's standard output, and a line can still be
    /// on its way; its standard error it does not wait for at all, and
    /// Jupyter drops a line that comes after the reply). Returns `joined`
    /// without the cell process's mark.
    async fn output_sent<M>(&self, joined: Joined<M>) -> Joined<M> {
        let mut joined = joined;
        if let Some(run) = joined
            .as_mut()
            .ok()
            .and_then(|(result, _)| result.as_mut().ok())
            .and_then(take_ran)
        {
            if !self.ends.wait(run, END_WAIT).await {
                eprintln!(
                    "puzzlebook: the end of cell run {run}'s output did not come within {} s; its reply goes without it",
                    END_WAIT.as_secs()
                );
            }
        }
        joined
    }

    /// Fails the cell `request` with an error reply when the engine panicked
    /// while running it (`joined`), so the session goes on; else returns what
    /// the cell gave.
    async fn survive_panic<T>(
        &self,
        joined: std::result::Result<T, tokio::task::JoinError>,
        request: &JupyterMessage,
        execution_count: u32,
        replies: &UnboundedSender<JupyterMessage>,
    ) -> Result<Option<T>> {
        let panic = match joined {
            Ok(done) => return Ok(Some(done)),
            Err(e) => e,
        };
        let why = panic
            .try_into_panic()
            .ok()
            .and_then(|p| {
                p.downcast_ref::<String>()
                    .cloned()
                    .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            })
            .unwrap_or_else(|| "no message".into());
        let evalue = format!(
            "the kernel's engine failed on this cell ({why}); the session goes on, so fix or change the cell and run it again"
        );
        self.reply_error(request, execution_count, "EngineError", evalue, replies)
            .await?;
        Ok(None)
    }

    /// A cell whose `?` returned an error or that panicked (its outputs carry
    /// a [`CellMark`]): the error or panic message printed above is the
    /// cell's result, and its reply is an error, so `nbconvert` stops and
    /// nbgrader takes the points, as for any failing cell. Returns the result
    /// of any other cell, unmarked.
    async fn marked_failure(
        &self,
        result: std::result::Result<evcxr::EvalOutputs, evcxr::Error>,
        message: &JupyterMessage,
        execution_count: u32,
        replies: &UnboundedSender<JupyterMessage>,
    ) -> Result<Option<std::result::Result<evcxr::EvalOutputs, evcxr::Error>>> {
        let mut result = result;
        let Some(mark) = result.as_mut().ok().and_then(CellMark::take) else {
            return Ok(Some(result));
        };
        // The error's own lines, on stderr, have gone out ([`Self::output_sent`]).
        let (ename, evalue) = match mark {
            CellMark::UserError => (
                "Error",
                "the cell's `?` returned the error printed above, so the rest of the cell did not run",
            ),
            CellMark::Panic => (
                "Panic",
                "the cell panicked with the message printed above, so the rest of the cell did not run",
            ),
        };
        self.reply_error(message, execution_count, ename, evalue.to_string(), replies)
            .await?;
        Ok(None)
    }

    /// Sends an error for the cell `message` and its error reply.
    async fn reply_error(
        &self,
        message: &JupyterMessage,
        execution_count: u32,
        ename: &str,
        evalue: String,
        replies: &UnboundedSender<JupyterMessage>,
    ) -> Result<()> {
        let mut content = super::outgoing::error_content(ename, &evalue);
        let mut error = content.clone();
        error.as_object_mut().map(|e| e.remove("status"));
        message
            .new_message("error")
            .with_content(error)
            .send(&mut *self.iopub().lock().await)
            .await?;
        content["execution_count"] = execution_count.into();
        replies.send(message.new_reply().with_content(content))?;
        Ok(())
    }

    /// After the cell `message` (number `execution_count`) succeeded: keeps
    /// it for a replay, and warns when the variables holding Z3 values changed.
    pub async fn succeeded(&self, message: &JupyterMessage, execution_count: u32) -> Result<()> {
        let hint = {
            let mut cells = lock(&self.cells);
            cells
                .session
                .succeeded(execution_count as usize, message.code());
            let ctx = lock(&self.started().engine);
            cells.z3.succeeded(&ctx, message.code())
        };
        if let Some(hint) = hint {
            self.send_stream(message, "stderr", format!("warning: {hint}\n"))
                .await?;
        }
        Ok(())
    }

    /// Before the error of a failed cell is shown: a crash after Z3 values
    /// were left in variables repeats what they were.
    pub async fn failed(&self, error: &evcxr::Error, message: &JupyterMessage) -> Result<()> {
        let note = lock(&self.cells).z3.failed(&error.to_string());
        if let Some(note) = note {
            self.send_stream(message, "stderr", format!("{note}\n"))
                .await?;
        }
        Ok(())
    }

    /// After a cell ended the process that runs cells (evcxr has started a
    /// new one): runs the session's earlier cells again with their output
    /// muted, and says what it did on the cell's standard error.
    pub async fn recover(&self, error: &evcxr::Error, message: &JupyterMessage) -> Result<()> {
        if !replay::process_ended(error) {
            return Ok(());
        }
        let mut note = String::new();
        if error.to_string().contains("SIGABRT") {
            note.push_str(&crate::kernel::cell_memory::memory_note());
        }
        let session = lock(&self.cells).session.clone();
        if !replay::enabled() {
            note.push_str(&replay::Replay::off_note());
        } else if !session.is_empty() {
            // Let the crashed cell's last lines out before muting.
            tokio::time::sleep(Duration::from_millis(50)).await;
            self.muted.store(true, Ordering::SeqCst);
            let engine = Arc::clone(&self.started().engine);
            let done =
                tokio::task::spawn_blocking(move || session.replay(&mut lock(&engine))).await;
            // The replay's last lines are read by now; give them time to be dropped.
            tokio::time::sleep(Duration::from_millis(50)).await;
            self.muted.store(false, Ordering::SeqCst);
            match done {
                Ok(r) => note.push_str(&r.note()),
                Err(e) => note.push_str(&format!(
                    "puzzlebook: running the earlier cells again failed: {e}\n"
                )),
            }
        }
        if !note.is_empty() {
            self.send_stream(message, "stderr", note).await?;
        }
        Ok(())
    }
}
