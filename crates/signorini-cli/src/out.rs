//! Standard output that ends quietly on a broken pipe. `println!` panics when the reader has
//! gone (`signorini ccd check … | head -1`); every line the CLI prints goes through
//! `outln!` / `out!` (below) instead, which exit at once with status 141 (128 + SIGPIPE, what a
//! shell reports for a program ended by a closed pipe) and print nothing more.

use std::fmt;
use std::io::Write;

/// Exit status after a broken pipe on stdout.
pub const BROKEN_PIPE_EXIT: i32 = 141;

/// Write `args` (and a newline if `newline`) to stdout; exit quietly on a broken pipe.
pub fn write(args: fmt::Arguments<'_>, newline: bool) {
    let mut out = std::io::stdout().lock();
    let result = out
        .write_fmt(args)
        .and_then(|()| {
            if newline {
                out.write_all(b"\n")
            } else {
                Ok(())
            }
        })
        .and_then(|()| out.flush());
    if let Err(e) = result {
        // Either way the process ends here, without waiting for files being written: their
        // temporary files are removed first.
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            signorini_harness::cancel::remove_temp_files_and_exit(BROKEN_PIPE_EXIT);
        }
        // Any other failure of stdout (a full disk): say so once on stderr, and stop.
        eprintln!("error: cannot write to standard output: {e}");
        signorini_harness::cancel::remove_temp_files_and_exit(2);
    }
}

/// `println!` to stdout that ends quietly on a broken pipe.
macro_rules! outln {
    () => {
        $crate::out::write(format_args!(""), true)
    };
    ($($arg:tt)*) => {
        $crate::out::write(format_args!($($arg)*), true)
    };
}

/// `print!` to stdout that ends quietly on a broken pipe.
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::out::write(format_args!($($arg)*), false)
    };
}
