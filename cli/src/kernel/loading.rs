//! puzzlebook: the crate's load in the background. `:load_config` builds z3,
//! polars and puzzlebook in a cold build folder, which takes minutes; the
//! kernel answers Jupyter meanwhile, and a cell that comes early waits.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use evcxr::CommandContext;

/// Work for the loading thread before `:load_config`, such as giving a cold
/// build folder a warm one's build.
pub(crate) type BeforeLoad = Box<dyn FnOnce() + Send>;

/// Work before a cell with a `:dep` command runs, such as pinning the build
/// folder's dependency versions to the checkout's Cargo.lock.
pub(crate) type BeforeDep = Arc<dyn Fn() + Send + Sync>;

/// What a cell that waits for the crate's load prints, every ten seconds,
/// followed by the time so far.
pub const LOADING_NOTE: &str =
    "puzzlebook: loading the crate (in a new build folder this builds z3, \
polars and puzzlebook, which takes minutes once); the cell runs when it is done:";

/// Whether this process's kernel has loaded the crate: its one engine's
/// `:load_config` ended well.
static LOADED: AtomicBool = AtomicBool::new(false);

/// Whether the crate has loaded ([`LOADED`]). Until then rust-analyzer
/// may have no crate to answer from: the engine starts without evcxr's
/// own first cell ([`crate::engine::quick_start`]), which
/// upstream runs for completions.
pub fn loaded() -> bool {
    LOADED.load(Ordering::SeqCst)
}

/// How the background `:load_config` is going.
#[derive(Clone)]
pub(super) struct Loading {
    state: Arc<Mutex<LoadState>>,
    /// When it started.
    pub started: Instant,
}

/// Where the load is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum LoadState {
    Running,
    Done,
    Failed(String),
}

/// Why a cell did not run after waiting for the crate's load.
pub(super) enum NotLoaded {
    Interrupted,
    Failed(String),
}

impl NotLoaded {
    /// The error's name and text, for the cell's error reply.
    pub fn error(self) -> (&'static str, String) {
        match self {
            NotLoaded::Interrupted => (
                "Interrupted",
                "interrupted while the kernel was still loading the puzzlebook crate; \
                 the load goes on, so run the cell again in a moment"
                    .to_string(),
            ),
            NotLoaded::Failed(e) => (
                "LoadFailed",
                format!("the kernel could not load the puzzlebook crate: {e}"),
            ),
        }
    }
}

impl Loading {
    /// Runs `:load_config` on `context` in a thread of its own, holding the
    /// engine until it is done, after `before_load`. Returns once that
    /// thread holds the engine, so that no cell the kernel is sent after
    /// this runs before the load; completions and hovers wait for
    /// [`loaded`] ([`super::busy::idle_engine`]). A panic in the load
    /// fails it, so that a waiting cell is told, not left waiting.
    pub fn start(context: Arc<Mutex<CommandContext>>, before_load: BeforeLoad) -> Loading {
        let loading = Loading {
            state: Arc::new(Mutex::new(LoadState::Running)),
            started: Instant::now(),
        };
        let state = Arc::clone(&loading.state);
        let (held, engine_held) = std::sync::mpsc::channel::<()>();
        std::thread::spawn(move || {
            let mut engine = crate::kernel::locks::lock(&context);
            let _ = held.send(());
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                before_load();
                engine.execute(":load_config --quiet")
            }));
            let done = match result {
                Ok(Ok(_)) => LoadState::Done,
                Ok(Err(e)) => LoadState::Failed(e.to_string()),
                Err(_) => LoadState::Failed("the load panicked".into()),
            };
            LOADED.store(done == LoadState::Done, Ordering::SeqCst);
            *crate::kernel::locks::lock(&state) = done;
        });
        // A thread that ended without sending (it cannot panic before) drops
        // the sender, and this returns as well.
        let _ = engine_held.recv();
        loading
    }

    /// Where the load is now.
    pub fn state(&self) -> LoadState {
        crate::kernel::locks::lock(&self.state).clone()
    }
}
