/// Running out of memory ends the run with a message, not an abort (`sim::oom`).
#[global_allocator]
static ALLOCATOR: lossless_core::sim::oom::Guarded = lossless_core::sim::oom::Guarded;

fn main() {
    std::process::exit(lossless_cli::main_with_args(std::env::args_os()));
}
