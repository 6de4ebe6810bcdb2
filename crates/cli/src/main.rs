fn main() {
    std::process::exit(lossless_cli::main_with_args(std::env::args_os()));
}
