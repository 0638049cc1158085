//! Which plan a commit's history carries out, remembered by commit id.
//!
//! Finding the plan of a proposal branch reads its tip commit and, for foreign commits, their
//! first parents ([`super::proposals`]); every command that knows plans' status does it for
//! every `papayu/*` branch. What it finds depends only on the commit — a commit never changes —
//! so it is remembered in `<gitdir>/papayu/cache/owners-v1`, one line per tip:
//!
//! ```text
//! <tip> <plan id> <own commit> [<foreign commit> …]
//! <tip> -
//! ```
//!
//! (`-`: no plan within reach). Lines are only appended, each batch in one `write` to a file
//! opened for appending, so concurrent papayu processes never tear each other's lines; a line
//! that does not read whole is ignored. Once the file holds more than twice as many lines as
//! there are tips now (plus [`SLACK`]), it is rewritten with the current tips' lines only, so
//! reading it costs what the branches there are cost, not what there ever were. Like every
//! cache it is an accelerator: a missing or unreadable file means reading the commits, as
//! without it.

use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;

use git2::{Oid, Repository};

use super::cache;
use super::ids::is_plan_id;

/// What a tip's history says: the plan, its own commit, and the commits above it.
pub(crate) type Owner = Option<(String, Oid, Vec<Oid>)>;

/// Lines the file may hold beyond twice the current tips before it is rewritten.
const SLACK: usize = 64;

/// The remembered tips, and how many lines the file holds (whole or not).
pub(crate) struct Remembered {
    pub owners: HashMap<Oid, Owner>,
    lines: usize,
}

fn path(repo: &Repository) -> PathBuf {
    cache::dir(repo).join("owners-v1")
}

/// Every remembered tip.
pub(crate) fn load(repo: &Repository) -> Remembered {
    // Read lossily: bytes that are not text only spoil their own line, and still count
    // towards rewriting the file.
    let bytes = std::fs::read(path(repo)).unwrap_or_default();
    let text = String::from_utf8_lossy(&bytes);
    Remembered {
        owners: text
            .split_inclusive('\n')
            .filter_map(|line| parse(line.strip_suffix('\n')?))
            .collect(),
        lines: text.split_inclusive('\n').count(),
    }
}

fn parse(line: &str) -> Option<(Oid, Owner)> {
    let mut words = line.split(' ');
    let tip = oid(words.next()?)?;
    let plan = words.next()?;
    if plan == "-" {
        return words.next().is_none().then_some((tip, None));
    }
    if !is_plan_id(plan) {
        return None;
    }
    let own = oid(words.next()?)?;
    let foreign = words.map(oid).collect::<Option<Vec<_>>>()?;
    Some((tip, Some((plan.to_string(), own, foreign))))
}

/// Only whole, lowercase ids: git2 would read a short one padded with zeros.
fn oid(word: &str) -> Option<Oid> {
    let hex = word.len() == 40 && word.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
    hex.then(|| Oid::from_str(word).ok()).flatten()
}

fn line(tip: Oid, owner: &Owner) -> String {
    match owner {
        None => format!("{tip} -\n"),
        Some((plan, own, foreign)) => {
            let mut out = format!("{tip} {plan} {own}");
            for commit in foreign {
                out.push_str(&format!(" {commit}"));
            }
            out.push('\n');
            out
        }
    }
}

/// Remembers `found` (tips just read from their commits), appended to what `remembered` read.
/// When the file would hold too many stale lines, it is rewritten with the tips in `current`
/// (every known tip a branch names now, `found`'s included) instead. Failures are ignored: the next
/// reader reads the commits.
pub(crate) fn remember(
    repo: &Repository,
    remembered: &Remembered,
    found: &[(Oid, Owner)],
    current: &[Oid],
) {
    if found.is_empty() {
        return;
    }
    let path = path(repo);
    if remembered.lines + found.len() > 2 * current.len() + SLACK {
        let owner = |tip: &Oid| {
            let new = found.iter().find(|(t, _)| t == tip).map(|(_, o)| o);
            new.or_else(|| remembered.owners.get(tip))
        };
        let text: String = current
            .iter()
            .filter_map(|tip| Some(line(*tip, owner(tip)?)))
            .collect();
        cache::replace(&path, text.as_bytes());
        return;
    }
    let text: String = found.iter().map(|(tip, owner)| line(*tip, owner)).collect();
    if std::fs::create_dir_all(cache::dir(repo)).is_err() {
        return;
    }
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path);
    if let Ok(mut file) = file {
        let _ = file.write_all(text.as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(c: char) -> Oid {
        Oid::from_str(&c.to_string().repeat(40)).unwrap()
    }

    #[test]
    fn lines_read_back_as_written_and_anything_else_is_ignored() {
        let plan = "b".repeat(40);
        let owned: Owner = Some((plan.clone(), id('c'), vec![id('d'), id('e')]));
        for owner in [owned, None, Some((plan.clone(), id('c'), Vec::new()))] {
            let text = line(id('a'), &owner);
            assert_eq!(parse(text.trim_end()), Some((id('a'), owner)), "{text}");
        }
        let tip = "a".repeat(40);
        let own = "c".repeat(40);
        for bad in [
            format!("{tip} - extra"),
            format!("{tip} release {own}"),
            format!("{tip} {plan}"),
            format!("{tip} {plan} {}", &own[..20]),
            format!("{} {plan} {own}", tip.to_uppercase()),
            format!("{tip} {plan} {own} zz"),
            String::new(),
        ] {
            assert_eq!(parse(&bad), None, "{bad:?}");
        }
    }

    #[test]
    fn new_tips_are_appended_and_a_file_of_stale_tips_keeps_only_the_current_ones() {
        let dir = tempfile::tempdir().unwrap();
        let repo = Repository::init(dir.path()).unwrap();
        let plan = "b".repeat(40);
        let owned: Owner = Some((plan, id('c'), Vec::new()));
        remember(&repo, &load(&repo), &[(id('a'), owned.clone())], &[]);
        remember(&repo, &load(&repo), &[(id('d'), None)], &[]);
        let known = load(&repo).owners;
        assert_eq!(known.len(), 2);
        assert_eq!(known[&id('a')], owned);
        assert_eq!(known[&id('d')], None);

        let stale = line(id('e'), &None).repeat(SLACK + 10) + &line(id('a'), &owned);
        std::fs::write(path(&repo), stale).unwrap();
        let current = [id('a'), id('f')];
        remember(&repo, &load(&repo), &[(id('f'), None)], &current);
        let known = load(&repo);
        assert_eq!(known.owners.len(), 2, "only the current tips");
        assert_eq!(known.lines, 2);

        // Bytes that are not text spoil their line only, and count towards the rewrite.
        let mut spoiled = b"\xff\xfe\n".repeat(SLACK + 10);
        spoiled.extend_from_slice(line(id('a'), &owned).as_bytes());
        std::fs::write(path(&repo), spoiled).unwrap();
        let known = load(&repo);
        assert_eq!(known.owners.get(&id('a')), Some(&owned));
        remember(&repo, &known, &[(id('f'), None)], &current);
        assert_eq!(load(&repo).lines, 2, "rewritten");
    }
}
