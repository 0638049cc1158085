//! Who papayu commits as, and how its commits for the user are signed.
//!
//! Two kinds of commit, two rules:
//!
//! - **Commits for the user** (proposal commits: they land on branches the user merges) follow
//!   git's identity rules exactly — `GIT_AUTHOR_*` and `GIT_COMMITTER_*`, `author.*`/
//!   `committer.*`/`user.*` config, `EMAIL`, auto-detection and `user.useConfigOnly` — and git
//!   refuses, with its own hint, when it has no identity. When both identities are given plainly
//!   (variables or config, no date variable, nothing git would clean) the commit is written here,
//!   byte for byte as `git commit-tree` writes it; otherwise `git commit-tree` writes it. When
//!   `commit.gpgsign` is on they are signed by git with the configured `gpg.format` (openpgp,
//!   ssh, x509) and `user.signingKey`, as `git commit` would. papayu never invents an author.
//! - **Bookkeeping commits** (notes, the operation log, previews, reflog entries) never reach a
//!   user's branch. They use the user's configured identity when there is one and a fixed
//!   `git-papayu` identity otherwise, so planning works before an identity is set.

use std::io::Write;
use std::process::Stdio;

use git2::{Oid, Repository, Signature, Time};

use super::StoreError;
use crate::clock::{offset_minutes, rfc3339_millis};
use crate::codes::{Code, Problem};

/// The identity bookkeeping commits fall back to.
const FIXED_NAME: &str = "git-papayu";
const FIXED_EMAIL: &str = "git-papayu@localhost";

/// The committer identity for bookkeeping commits (notes, operation log, previews, reflogs).
pub fn signature(repo: &Repository) -> Signature<'static> {
    identity(repo, "COMMITTER")
}

/// The author identity for bookkeeping commits.
pub fn author(repo: &Repository) -> Signature<'static> {
    identity(repo, "AUTHOR")
}

/// The user's own author identity as `Name <email>`, when git has one (`GIT_AUTHOR_*`,
/// `user.*`); `None` where bookkeeping commits would fall back to papayu's fixed identity.
pub fn user_identity(repo: &Repository) -> Option<String> {
    let config = repo.config().and_then(|mut c| c.snapshot()).ok();
    let from_config = |key: &str| super::config::layered_string(config.as_ref(), key);
    let given = |var: &str, key: &str| {
        std::env::var(var)
            .ok()
            .or_else(|| from_config(key))
            .filter(|v| !v.trim().is_empty())
    };
    let name = given("GIT_AUTHOR_NAME", "user.name")?;
    let email = given("GIT_AUTHOR_EMAIL", "user.email")?;
    Some(format!("{} <{}>", name.trim(), email.trim()))
}

fn identity(repo: &Repository, role: &str) -> Signature<'static> {
    let config = repo.config().and_then(|mut c| c.snapshot()).ok();
    let from_config = |key: &str| super::config::layered_string(config.as_ref(), key);
    let name = std::env::var(format!("GIT_{role}_NAME"))
        .ok()
        .or_else(|| from_config("user.name"))
        .unwrap_or_else(|| FIXED_NAME.to_string());
    let email = std::env::var(format!("GIT_{role}_EMAIL"))
        .ok()
        .or_else(|| from_config("user.email"))
        .unwrap_or_else(|| FIXED_EMAIL.to_string());
    let time = std::env::var(format!("GIT_{role}_DATE"))
        .ok()
        .and_then(|d| parse_date(&d));
    let made = match time {
        Some(t) => Signature::new(&name, &email, &t),
        None => Signature::now(&name, &email),
    };
    made.unwrap_or_else(|_| fixed_identity())
}

/// papayu's own identity, for when the configured one is not a valid signature.
#[expect(
    clippy::expect_used,
    reason = "a fixed ASCII name and address always make a valid signature"
)]
fn fixed_identity() -> Signature<'static> {
    Signature::now(FIXED_NAME, FIXED_EMAIL).expect("a fixed ASCII identity is always valid")
}

/// A git command aimed at `repo` (whatever the caller's `GIT_DIR` says).
fn git_at(repo: &Repository) -> std::process::Command {
    let mut cmd = super::command("git");
    cmd.arg("--git-dir").arg(repo.path());
    if let Some(workdir) = repo.workdir() {
        cmd.current_dir(workdir);
    } else {
        cmd.current_dir(repo.path());
    }
    cmd
}

/// The author and committer git would use, when it would take them as given: each name and
/// email from `GIT_<ROLE>_NAME`/`_EMAIL`, else `<role>.name`/`.email`, else `user.name`/`.email`
/// (`EMAIL`, auto-detection and `user.useConfigOnly` are left to git), none empty or changed by
/// git's cleaning of identities, no `GIT_<ROLE>_DATE` (git's date grammar is git's) and no
/// `i18n.commitEncoding` other than UTF-8. `None` means: let git write the commit.
fn plain_identities(config: &git2::Config) -> Option<(Signature<'static>, Signature<'static>)> {
    let encoding = super::config::layered_string(Some(config), "i18n.commitEncoding");
    if encoding.is_some_and(|e| !e.eq_ignore_ascii_case("utf-8") && !e.eq_ignore_ascii_case("utf8"))
    {
        return None;
    }
    let one = |role: &str, section: &str| -> Option<Signature<'static>> {
        if std::env::var_os(format!("GIT_{role}_DATE")).is_some() {
            return None;
        }
        let field = |what: &str| -> Option<String> {
            let value = match std::env::var_os(format!("GIT_{role}_{}", what.to_ascii_uppercase()))
            {
                Some(v) => v.into_string().ok()?,
                None => super::config::layered_string(Some(config), &format!("{section}.{what}"))
                    .or_else(|| {
                    super::config::layered_string(Some(config), &format!("user.{what}"))
                })?,
            };
            is_clean(&value).then_some(value)
        };
        // Dated now in the local offset, as git dates it.
        Signature::now(&field("name")?, &field("email")?).ok()
    };
    Some((one("AUTHOR", "author")?, one("COMMITTER", "committer")?))
}

/// Whether git's cleaning of an identity field (dropping `<`, `>` and newlines, trimming
/// spaces, control characters and `.,:;"'\\` at both ends) leaves `value` as it is, and it is
/// not empty.
fn is_clean(value: &str) -> bool {
    let crud =
        |c: char| c <= ' ' || matches!(c, '.' | ',' | ':' | ';' | '<' | '>' | '"' | '\\' | '\'');
    !value.is_empty()
        && !value.contains(['<', '>', '\n'])
        && !value.starts_with(crud)
        && !value.ends_with(crud)
}

/// Writes a commit of `tree` on `parent` for the user, with `git commit-tree`: git's identity
/// rules, git's date handling, and git's signing when `commit.gpgsign` is on. No ref is moved.
pub fn commit_for_user(
    repo: &Repository,
    parent: Oid,
    tree: Oid,
    message: &str,
) -> Result<Oid, StoreError> {
    let config = repo
        .config()
        .and_then(|mut c| c.snapshot())
        .map_err(|e| StoreError::git("reading git config", e))?;
    let sign = super::config::layered_bool(Some(&config), "commit.gpgsign").unwrap_or(false);
    if !sign && let Some((author, committer)) = plain_identities(&config) {
        let tree = repo
            .find_tree(tree)
            .map_err(|e| StoreError::git("reading the commit's tree", e))?;
        let parent = repo
            .find_commit(parent)
            .map_err(|e| StoreError::git("reading the commit's parent", e))?;
        return repo
            .commit(None, &author, &committer, message, &tree, &[&parent])
            .map_err(|e| StoreError::git("writing the commit", e));
    }
    let mut cmd = git_at(repo);
    cmd.args(["commit-tree", &tree.to_string(), "-p", &parent.to_string()])
        .arg(if sign { "-S" } else { "--no-gpg-sign" })
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd
        .spawn()
        .map_err(|e| StoreError::io("running git commit-tree", e))?;
    let mut stdin = child.stdin.take().ok_or_else(|| {
        StoreError::io(
            "running git commit-tree",
            std::io::Error::other("its input is not a pipe"),
        )
    })?;
    let text = message.as_bytes().to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&text));
    let out = child
        .wait_with_output()
        .map_err(|e| StoreError::io("running git commit-tree", e))?;
    let _ = writer.join();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    if !out.status.success() {
        return Err(commit_refused(&stderr, sign));
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    let id = stdout.trim();
    Oid::from_str(id)
        .ok()
        .filter(|_| id.len() == 40 || id.len() == 64)
        .ok_or_else(|| {
            StoreError::from(Problem::new(
                Code::Git,
                format!("git commit-tree printed no commit id ({id:?}); run git fsck"),
            ))
        })
}

/// Classifies why git refused to write a commit, keeping git's own words as the detail.
fn commit_refused(stderr: &str, signing: bool) -> StoreError {
    let lower = stderr.to_ascii_lowercase();
    let identity = [
        "please tell me who you are",
        "auto-detection is disabled",
        "unable to auto-detect",
        "empty ident name",
        "name consists only of disallowed characters",
        "identity unknown",
    ];
    let problem = if identity.iter().any(|m| lower.contains(m)) {
        Problem::new(
            Code::IdentityUnknown,
            "git has no identity to commit as; set git config user.name and user.email (git's hint below), nothing was written",
        )
    } else if signing {
        Problem::new(
            Code::SigningFailed,
            "commit.gpgsign is on and git could not sign the commit (its message below); fix the signing setup, nothing was written",
        )
    } else {
        Problem::new(
            Code::Git,
            "git commit-tree failed (its message below); run git fsck",
        )
    };
    StoreError::from(problem.with_detail(stderr.trim_end()))
}

/// Parses the date forms tests and scripts use: `@<secs> [+hhmm]`, `<secs> +hhmm`, and RFC 3339
/// `YYYY-MM-DDTHH:MM:SS[.fff](Z|±hh:mm)` as [`crate::clock`] reads it (fractions of a second
/// dropped).
/// A date from `GIT_*_DATE` that a commit can carry, else `None` (the commit is dated now):
/// seconds from 0 to the end of year 9999 and an offset of at most ±23:59, so that `git fsck
/// --strict` accepts every commit papayu writes whatever the environment says.
fn parse_date(text: &str) -> Option<Time> {
    let text = text.trim();
    let raw = text.strip_prefix('@').unwrap_or(text);
    let mut parts = raw.split_whitespace();
    let time = match parts.next().map(str::parse::<i64>) {
        Some(Ok(secs)) => {
            let offset = match parts.next() {
                Some(o) => offset_minutes(o)?,
                None => 0,
            };
            Time::new(secs, offset)
        }
        _ => {
            let (millis, offset) = rfc3339_millis(text)?;
            Time::new(millis.div_euclid(1000), offset)
        }
    };
    const END_OF_9999: i64 = 253_402_300_799;
    (0..=END_OF_9999).contains(&time.seconds()).then_some(time)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_git_date_forms() {
        assert_eq!(
            parse_date("@1700000000 +0100").map(|t| (t.seconds(), t.offset_minutes())),
            Some((1_700_000_000, 60))
        );
        assert_eq!(
            parse_date("1700000000 -0230").map(|t| t.offset_minutes()),
            Some(-150)
        );
        assert_eq!(
            parse_date("2026-01-01T00:00:00Z").map(|t| t.seconds()),
            Some(1_767_225_600)
        );
        assert_eq!(
            parse_date("1970-01-02T01:00:00+01:00").map(|t| t.seconds()),
            Some(86_400)
        );
        assert!(parse_date("next tuesday").is_none());
        // Dates a commit cannot carry are not used: the commit is dated now instead.
        for odd in [
            "1700000000 +9999",
            "-5 +0000",
            "@99999999999999999 +0000",
            "2026-13-01T00:00:00Z",
            "2026-02-30T25:61:61Z",
            "1700000000 +01",
            "1700000000 ++100",
        ] {
            assert!(parse_date(odd).is_none(), "{odd}");
        }
    }

    #[test]
    fn rfc_3339_dates_are_read_as_the_clock_reads_them() {
        let at = |text: &str| parse_date(text).map(|t| (t.seconds(), t.offset_minutes()));
        assert_eq!(at("2026-01-01t00:00:00z"), Some((1_767_225_600, 0)));
        assert_eq!(
            at("2026-01-01 01:00:00.750+01:00"),
            Some((1_767_225_600, 60))
        );
        assert_eq!(at("1970-01-01T00:00:01.999Z"), Some((1, 0)));
        assert_eq!(at("2025-12-31T21:30:00-02:30"), Some((1_767_225_600, -150)));
        // Not RFC 3339 (no seconds, a one-digit month, a fraction without digits): dated now.
        for odd in [
            "2026-01-01T00:00Z",
            "2026-1-01T00:00:00Z",
            "2026-01-01T00:00:00.Z",
        ] {
            assert!(parse_date(odd).is_none(), "{odd}");
        }
    }
}
