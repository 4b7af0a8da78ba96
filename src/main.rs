//! The `ckptsim` command: parses arguments and maps errors to exit codes (0 ok, 1 runtime
//! error or failed validation, 2 bad usage or bad input).

fn main() {
    std::process::exit(ckptsim::cli::main());
}
