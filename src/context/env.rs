//! The environment a plan runs in, for a goal or log that says a dependency is missing and for
//! a model's `env` request: the OS, the toolchains on PATH and the package managers the tree
//! uses, with the tree's manifests. Never the value of an environment variable.

use super::blocks::file_block;
use super::{Block, BlockKind, Gathered};
use crate::store::Snapshot;

/// The manifests sent with the environment, when the tree has them.
const MANIFESTS: &[&str] = &[
    "pyproject.toml",
    "requirements.txt",
    "package.json",
    "poetry.lock",
    "Cargo.toml",
    "go.mod",
];

/// The environment block and the tree's manifests not already sent.
pub(super) fn add_environment(snap: &Snapshot<'_>, out: &mut Gathered) {
    out.blocks.push(Block::text(
        BlockKind::Env,
        "env",
        "a dependency is missing",
        1,
        env_text(snap),
    ));
    for manifest in MANIFESTS {
        if snap.is_file(manifest)
            && !out.blocks.iter().any(|b| b.title == *manifest)
            && let Some(block) = file_block(snap, manifest, &[], "manifest", 2)
        {
            out.blocks.push(block);
        }
    }
}

/// The environment: OS, the toolchains on PATH with their versions, and the package manager the
/// tree uses. Never the values of environment variables.
pub fn env_text(snap: &Snapshot<'_>) -> String {
    let mut out = format!("os: {} {}\n", std::env::consts::OS, std::env::consts::ARCH);
    for (tool, arg) in [
        ("python3", "--version"),
        ("node", "--version"),
        ("cargo", "--version"),
        ("rustc", "--version"),
        ("go", "version"),
        ("java", "-version"),
    ] {
        if let Ok(o) = std::process::Command::new(tool).arg(arg).output() {
            let text = String::from_utf8_lossy(if o.stdout.is_empty() {
                &o.stderr
            } else {
                &o.stdout
            })
            .into_owned();
            if let Some(first) = text.lines().next() {
                out.push_str(&format!("{tool}: {}\n", first.trim()));
            }
        }
    }
    let managers = [
        ("Cargo.toml", "cargo"),
        ("poetry.lock", "poetry"),
        ("uv.lock", "uv"),
        ("requirements.txt", "pip"),
        ("pyproject.toml", "pip (pyproject)"),
        ("pnpm-lock.yaml", "pnpm"),
        ("yarn.lock", "yarn"),
        ("package-lock.json", "npm"),
        ("package.json", "npm"),
        ("go.mod", "go modules"),
    ];
    let found: Vec<&str> = managers
        .iter()
        .filter(|(f, _)| snap.is_file(f))
        .map(|(_, m)| *m)
        .collect();
    if !found.is_empty() {
        out.push_str(&format!("package managers: {}\n", found.join(", ")));
    }
    out
}
