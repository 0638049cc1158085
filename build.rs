//! Release builds on Linux keep line tables for papayu's own code (backtraces name file and
//! line) but compress every debug section as they are linked, which halves the binary; Rust's
//! backtraces read compressed sections as they read plain ones.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let release = std::env::var("PROFILE").is_ok_and(|p| p == "release");
    let linux = std::env::var("CARGO_CFG_TARGET_OS").is_ok_and(|os| os == "linux");
    if release && linux {
        println!("cargo:rustc-link-arg-bins=-Wl,--compress-debug-sections=zlib");
    }
}
