//! The wire (`stepframe_host::wire`) from outside: frames, the handshake,
//! the three transports, the fuzzer, and the protocol's messages through
//! the codec. One test binary.
//!
//! | module | what |
//! |---|---|
//! | `support` | a test message of every serde shape, its proptest strategy, bounded waits |
//! | `alloc_probe` | this binary's allocator: the largest single allocation a thread made |
//! | `frames` | frame layout, the cap at both ends, truncation, timeouts, two threads |
//! | `handshake` | version, build, role and token checks, over a pair and a loopback port |
//! | `debug` | a session driven by the caller's loop, an editor attached over loopback |
//! | `child` | a real child process on an inherited socket (this binary re-executed) |
//! | `fuzz` | random and damaged input never panics, allocates within the cap, and says what was wrong |
//! | `protocol` | random commands and events (every shape of field they hold) round-trip through the codec |

mod alloc_probe;
mod child;
mod debug;
mod frames;
mod fuzz;
mod handshake;
mod protocol;
mod support;
