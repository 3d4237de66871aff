//! Standard output, where a closed pipe is a normal end: `puzzlebook solve
//! sum-product | head -3` stops quietly with exit code 0, as ripgrep does,
//! instead of panicking in `println!`.

use std::io::Write;

/// Writes `args` to standard output and flushes. When the reader has gone
/// (a closed pipe), the process ends at once with exit code 0: nothing is
/// left half-written, since every file the command writes is written
/// atomically, and there is no one left to tell. Any other error writing to
/// standard output ends it with the error exit code and says so on stderr.
pub fn write(args: std::fmt::Arguments<'_>) {
    let mut stdout = std::io::stdout().lock();
    if let Err(e) = stdout.write_fmt(args).and_then(|()| stdout.flush()) {
        end_on(&e);
    }
}

/// Ends the process for an error writing to standard output: quietly with
/// exit code 0 for a closed pipe, else with a message and exit code 2.
pub fn end_on(e: &std::io::Error) -> ! {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        std::process::exit(0);
    }
    eprintln!("error: cannot write to standard output: {e}");
    std::process::exit(2);
}

/// `print!` to standard output, ending quietly on a closed pipe ([`write`]).
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::out::write(format_args!($($arg)*))
    };
}

/// `println!` to standard output, ending quietly on a closed pipe ([`write`]).
#[macro_export]
macro_rules! outln {
    () => {
        $crate::out::write(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::out::write(format_args!("{}\n", format_args!($($arg)*)))
    };
}
