//! The `symscope` binary: a thin shell around the library.

use clap::Parser as _;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = symscope::cli::Cli::parse();
    match std::panic::catch_unwind(|| symscope::cli::run(cli)) {
        Ok(code) => code,
        Err(_) => {
            eprintln!("symscope: internal error (a bug): see the message above");
            ExitCode::from(1)
        }
    }
}
