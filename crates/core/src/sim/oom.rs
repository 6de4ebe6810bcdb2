//! An allocator that ends the process with a message when memory runs out, instead of Rust's
//! abort ("memory allocation of N bytes failed", exit 134 and, from Python, a dead
//! interpreter with no word of why). The estimate (`sim::memory`) refuses runs it knows to be
//! too large; this catches what grows past it, or a limit it could not see.
//!
//! The binaries install it (`#[global_allocator]` in the command line and the Python module);
//! it only wraps the system allocator, so it costs a branch per allocation.

use std::alloc::{GlobalAlloc, Layout, System};

/// The exit status of a process that ran out of memory: a failure, not bad input.
pub const EXIT_OUT_OF_MEMORY: i32 = 1;

pub struct Guarded;

// SAFETY: every call is passed to the system allocator unchanged; only a null result, which
// Rust would answer with an abort, is answered with an exit instead.
unsafe impl GlobalAlloc for Guarded {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        checked(System.alloc(layout), layout.size())
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        checked(System.alloc_zeroed(layout), layout.size())
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        checked(System.realloc(ptr, layout, new_size), new_size)
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
}

#[inline(always)]
fn checked(ptr: *mut u8, bytes: usize) -> *mut u8 {
    if ptr.is_null() {
        out_of_memory(bytes);
    }
    ptr
}

/// Says what happened and ends the process, allocating nothing (the message is assembled on
/// the stack and written with one system call).
#[cold]
fn out_of_memory(bytes: usize) -> ! {
    let mut buf = [0u8; 512];
    let mut len = 0;
    let mut put = |s: &[u8]| {
        let n = s.len().min(buf.len() - len);
        buf[len..len + n].copy_from_slice(&s[..n]);
        len += n;
    };
    put(b"error: out of memory: an allocation of ");
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    let mut x = bytes;
    loop {
        i -= 1;
        digits[i] = b'0' + (x % 10) as u8;
        x /= 10;
        if x == 0 {
            break;
        }
    }
    put(&digits[i..]);
    put(b" bytes failed. The run needs more memory than this process may use (the machine's, `ulimit -v`, or a container's limit): `lossless validate` prints the estimate; simulate a smaller network or a shorter run, or raise the limit.\n");
    write_stderr(&buf[..len]);
    // SAFETY: _exit ends the process at once, running nothing that could allocate.
    #[cfg(target_os = "linux")]
    unsafe {
        libc::_exit(EXIT_OUT_OF_MEMORY)
    }
    #[cfg(not(target_os = "linux"))]
    std::process::abort()
}

#[cfg(target_os = "linux")]
fn write_stderr(bytes: &[u8]) {
    // SAFETY: writes `bytes`, which outlive the call, to file descriptor 2.
    unsafe {
        libc::write(2, bytes.as_ptr().cast(), bytes.len());
    }
}

#[cfg(not(target_os = "linux"))]
fn write_stderr(_: &[u8]) {}
