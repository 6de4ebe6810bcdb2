//! Running out of memory ends the process with a message naming what failed and what to do,
//! and exit status 1, not Rust's abort (status 134).

use lossless_core::sim::oom::{Guarded, EXIT_OUT_OF_MEMORY};
use std::process::Command;

#[global_allocator]
static ALLOCATOR: Guarded = Guarded;

const CHILD: &str = "LOSSLESS_OOM_CHILD";

#[test]
fn running_out_of_memory_ends_with_a_message() {
    if std::env::var_os(CHILD).is_some() {
        // 64 TiB: more than any machine this runs on, so the system allocator returns null.
        let v: Vec<u8> = Vec::with_capacity(1 << 46);
        std::hint::black_box(&v);
        return;
    }
    let me = std::env::current_exe().unwrap();
    let out = Command::new(me).args(["--exact", "running_out_of_memory_ends_with_a_message", "--nocapture"]).env(CHILD, "1").output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(EXIT_OUT_OF_MEMORY), "{stderr}");
    assert!(stderr.contains("error: out of memory: an allocation of 70368744177664 bytes failed"), "{stderr}");
    assert!(stderr.contains("lossless validate"), "{stderr}");
}
