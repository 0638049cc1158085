//! The environment a check runs in: an allowlist of papayu's variables, the names the user adds
//! (`papayu.checkEnv`), never a credential by a wildcard, and a private home and temporary
//! directory.

/// Variables every check gets from papayu's environment, besides `LC_*`; the rest only when
/// the user names them in `papayu.checkEnv`.
const KEPT_VARS: &[&str] = &["PATH", "LANG", "TERM", "TZ"];

/// Where `sh` and the usual tools are when papayu itself has no `PATH`.
const DEFAULT_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// `true` when the variable `name` passes into the check: one of [`KEPT_VARS`], `LC_*`, named in
/// `papayu.checkEnv`, or matched by a `PREFIX*` there unless it is named like a credential (a
/// credential passes only by its full name).
pub(super) fn passes(name: &str, named: &[String]) -> bool {
    KEPT_VARS.contains(&name)
        || name.starts_with("LC_")
        || named.iter().any(|n| match n.strip_suffix('*') {
            Some(prefix) => name.starts_with(prefix) && !is_secret_var(name),
            None => n == name,
        })
}

/// `true` for environment variables that hold credentials: provider keys and anything named
/// like `*_API_KEY`, `*_TOKEN`, `*_SECRET`, `*_PASSWORD`.
pub fn is_secret_var(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    const SUFFIXES: &[&str] = &[
        "_API_KEY",
        "_APIKEY",
        "_TOKEN",
        "_SECRET",
        "_SECRET_KEY",
        "_ACCESS_KEY",
        "_PASSWORD",
        "_PASSWD",
        "_CREDENTIALS",
    ];
    const NAMES: &[&str] = &["API_KEY", "TOKEN", "SECRET", "PASSWORD"];
    NAMES.contains(&upper.as_str())
        || SUFFIXES.iter().any(|s| upper.ends_with(s))
        || upper.contains("SECRET")
}

/// The check's whole environment: an allowlist, not a blocklist, since `DATABASE_URL` with its
/// password, `SSH_AUTH_SOCK` or a `PRIVATE_KEY` have no recognisable name. `HOME` and the
/// temporary directory variables point at the check's private `tmp`, and Python keeps its
/// bytecode there too.
pub(super) fn set_environment(
    cmd: &mut std::process::Command,
    named: &[String],
    tmp: &std::path::Path,
) {
    cmd.env_clear();
    cmd.envs(environment(named));
    if !named.iter().any(|n| n == "HOME") {
        cmd.env("HOME", tmp);
    }
    cmd.env("TMPDIR", tmp).env("TMP", tmp).env("TEMP", tmp);
    cmd.env("PYTHONPYCACHEPREFIX", tmp.join("pycache"));
}

/// The variables a check gets from papayu's environment, sorted: the allowlist, the names the
/// user added, and where the user's Rust toolchain lives. Part of the base run's cache key.
pub fn environment(named: &[String]) -> Vec<(std::ffi::OsString, std::ffi::OsString)> {
    let mut vars: Vec<_> = std::env::vars_os()
        .filter(|(name, _)| name.to_str().is_some_and(|name| passes(name, named)))
        .collect();
    if std::env::var_os("PATH").is_none() {
        vars.push(("PATH".into(), DEFAULT_PATH.into()));
    }
    for (name, value) in toolchain_homes() {
        if !vars.iter().any(|(n, _)| n == name) {
            vars.push((name.into(), value.into_os_string()));
        }
    }
    vars.sort();
    vars
}

/// `RUSTUP_HOME` and `CARGO_HOME` as the user's own shell resolves them: the variables when
/// set, else their defaults under the real home, when those exist. The check's private `HOME`
/// would otherwise hide rustup's toolchains ("rustup could not choose a version of cargo").
/// The check may read them, as it may read any file; it may not write them.
fn toolchain_homes() -> Vec<(&'static str, std::path::PathBuf)> {
    let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
    [("RUSTUP_HOME", ".rustup"), ("CARGO_HOME", ".cargo")]
        .into_iter()
        .filter_map(|(name, dir)| {
            let path = match std::env::var_os(name) {
                Some(value) if !value.is_empty() => std::path::PathBuf::from(value),
                _ => home.as_ref()?.join(dir),
            };
            path.is_dir().then_some((name, path))
        })
        .collect()
}
