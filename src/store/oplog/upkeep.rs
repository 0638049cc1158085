//! Keeping the operation log sound and bounded: `gc` forgets old entries (rewriting the chain
//! so what stays keeps its lines), and `gc --repair` mends a log or notes ref a crash or an
//! outside tool left pointing at something missing.

use git2::{Oid, Repository};
use serde::Serialize;

use super::{Entry, OpKind, Operation, entries, read_entry, write_commit};
use crate::store::refs::{self, RefChange};
use crate::store::{NOTES_REF, OPLOG_REF, Store, StoreError, notes};

/// What forgetting old operations did (or would do).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Forgotten {
    pub kept: usize,
    pub forgotten: usize,
}

/// Forgets the operations logged before `cutoff` (milliseconds): the log is rewritten to hold
/// only the newer ones, so what only the older ones kept reachable (replaced commits, previews)
/// can be collected by `git gc`. Undo and redo then stop at the oldest kept operation. The
/// rewrite is one compare-and-swap of the log ref: an operation logged meanwhile makes it fail
/// with nothing changed. With `dry_run`, only counts.
pub fn forget_before(store: &Store, cutoff: i64, dry_run: bool) -> Result<Forgotten, StoreError> {
    let entries = entries(store)?;
    let kept = entries.iter().take_while(|e| e.op.at >= cutoff).count();
    let result = Forgotten {
        kept,
        forgotten: entries.len() - kept,
    };
    if dry_run || result.forgotten == 0 {
        return Ok(result);
    }
    let mut carried = Carried::default();
    for e in &entries[kept..] {
        carried.cancels.extend(e.op.cancels().map(str::to_string));
        carried.verdicts.extend(e.op.verdicts().map(str::to_string));
    }
    let previous = rewrite_chain(&store.repo, &entries[..kept], carried)?;
    let repo = &store.repo;
    let old = entries.first().map(|e| e.id);
    refs::update(
        repo,
        &[RefChange::new(OPLOG_REF, old, previous)],
        &format!("papayu gc: forget {} operation(s)", result.forgotten),
    )?;
    Ok(result)
}

/// The lines of forgotten operations that must stay in effect: their cancels and the lines of
/// their checks, by line hash.
#[derive(Debug, Default)]
struct Carried {
    cancels: Vec<String>,
    verdicts: Vec<String>,
}

/// Writes `kept` (newest first) again as a chain of its own, oldest first, each on top of the
/// one rewritten before it; returns the new newest entry. The lines in `carried` (of entries
/// left out) stay in effect: the oldest kept entry, or a `gc` entry when none is kept, vouches
/// for them. Parents that are no longer in the object database are left out.
fn rewrite_chain(
    repo: &Repository,
    kept: &[Entry],
    mut carried: Carried,
) -> Result<Option<Oid>, StoreError> {
    let mut renamed: std::collections::HashMap<String, String> = Default::default();
    let mut previous: Option<Oid> = None;
    for list in [&mut carried.cancels, &mut carried.verdicts] {
        list.sort_unstable();
        list.dedup();
    }
    let count = carried.cancels.len() + carried.verdicts.len();
    if kept.is_empty() && count > 0 {
        let op = Operation {
            op: OpKind::Gc,
            description: format!(
                "keep {count} cancel(s) and check line(s) of forgotten operations"
            ),
            at: crate::clock::now_millis(),
            refs: Vec::new(),
            previous: None,
            target: None,
            lines: Vec::new(),
            kept_cancels: std::mem::take(&mut carried.cancels),
            kept_verdicts: std::mem::take(&mut carried.verdicts),
        };
        previous = Some(write_commit(repo, None, &op, &[])?);
    }
    for entry in kept.iter().rev() {
        let mut op = entry.op.clone();
        op.kept_cancels.append(&mut carried.cancels);
        op.kept_verdicts.append(&mut carried.verdicts);
        op.previous = previous.map(|p| p.to_string());
        op.target = op
            .target
            .as_ref()
            .map(|t| renamed.get(t).cloned().unwrap_or_else(|| t.clone()));
        let commit = repo.find_commit(entry.id).map_err(|e| {
            StoreError::reading(OPLOG_REF, entry.id, "reading the operation log", e)
        })?;
        // Every parent but the old chain link: what the entry kept reachable stays so.
        let old_previous = entry.op.previous.as_deref();
        let extra: Vec<Oid> = commit
            .parent_ids()
            .filter(|p| Some(p.to_string().as_str()) != old_previous)
            .collect();
        let id = write_commit(repo, previous, &op, &extra)?;
        renamed.insert(entry.id.to_string(), id.to_string());
        previous = Some(id);
    }
    Ok(previous)
}

/// What `gc --repair` did to one of papayu's refs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Repair {
    #[serde(rename = "ref")]
    pub name: String,
    #[serde(with = "opt_hex")]
    pub from: Option<Oid>,
    #[serde(with = "opt_hex")]
    pub to: Option<Oid>,
    /// What was lost, in words.
    pub lost: String,
}

mod opt_hex {
    use git2::Oid;
    use serde::Serializer;

    pub fn serialize<S: Serializer>(oid: &Option<Oid>, s: S) -> Result<S::Ok, S::Error> {
        match oid {
            Some(o) => s.serialize_str(&o.to_string()),
            None => s.serialize_none(),
        }
    }
}

/// The readable entries of the log from `tip`, newest first, and whether the chain reads to
/// its end with every parent present.
fn readable_chain(repo: &Repository, tip: Oid) -> (Vec<Entry>, bool) {
    let mut out = Vec::new();
    let mut next = Some(tip);
    while let Some(id) = next {
        let Ok(entry) = read_entry(repo, id) else {
            return (out, false);
        };
        let parents_present = repo
            .find_commit(id)
            .is_ok_and(|c| c.parent_ids().all(|p| repo.find_commit(p).is_ok()));
        next = match entry.op.previous.as_deref().map(Oid::from_str) {
            None => None,
            Some(Ok(p)) => Some(p),
            Some(Err(_)) => {
                out.push(entry);
                return (out, false);
            }
        };
        out.push(entry);
        if !parents_present {
            // Keep reading, but the chain has to be written again.
            let (rest, _) = match next {
                Some(p) => readable_chain(repo, p),
                None => (Vec::new(), true),
            };
            out.extend(rest);
            return (out, false);
        }
    }
    (out, true)
}

/// Whether the notes commit `notes` and every note in it can be read.
fn notes_intact(repo: &Repository, notes: Oid) -> bool {
    notes::all(repo, Some(notes)).is_ok()
}

/// The values a ref had, newest first, from its reflog.
fn reflog_values(repo: &Repository, name: &str) -> Vec<Oid> {
    repo.reflog(name)
        .map(|log| log.iter().map(|e| e.id_new()).collect())
        .unwrap_or_default()
}

/// Moves `refs/notes/papayu` and `refs/papayu/oplog` back to their last intact commits when
/// objects they need are missing (a `git gc --prune=now` that raced a write), and rewrites the
/// log without links to missing commits. Everything still readable is kept; what is lost is
/// said. Each ref moves by compare-and-swap. With `dry_run`, only says what it would do.
pub fn repair(store: &Store, dry_run: bool) -> Result<Vec<Repair>, StoreError> {
    let repo = &store.repo;
    let log_tip = store.ref_value(OPLOG_REF)?;
    // The log first read as it is: the notes values it recorded are candidates for the notes.
    let (chain, chain_whole) = match log_tip {
        Some(tip) => readable_log(repo, tip),
        None => (Vec::new(), true),
    };
    let mut done = Vec::new();
    if let Some(notes) = store.ref_value(NOTES_REF)?
        && !notes_intact(repo, notes)
    {
        done.push(repair_notes(repo, notes, &chain, dry_run)?);
    }
    if let Some(tip) = log_tip
        && (!chain_whole || chain.first().map(|e| e.id) != Some(tip))
    {
        done.push(repair_log(repo, tip, (&chain, chain_whole), dry_run)?);
    }
    if !dry_run {
        remove_stale_keeps(repo);
        if !done.is_empty() {
            for name in [NOTES_REF, OPLOG_REF] {
                forget_missing_in_reflog(repo, name);
            }
        }
    }
    Ok(done)
}

/// The log's entries readable from `tip`, or else from the newest value in its reflog whose
/// entry can be read, and whether that chain is whole (every entry and every parent there,
/// back to its start). Empty when no value can be read.
fn readable_log(repo: &Repository, tip: Oid) -> (Vec<Entry>, bool) {
    let starts = std::iter::once(tip).chain(reflog_values(repo, OPLOG_REF));
    for start in starts {
        if read_entry(repo, start).is_ok() {
            return readable_chain(repo, start);
        }
    }
    (Vec::new(), true)
}

/// Moves the broken notes commit `notes` back to the newest intact one its reflog or the log
/// (`chain`) recorded, or deletes the ref when there is none.
fn repair_notes(
    repo: &Repository,
    notes: Oid,
    chain: &[Entry],
    dry_run: bool,
) -> Result<Repair, StoreError> {
    let recorded = chain.iter().flat_map(|e| {
        e.op.refs
            .iter()
            .filter(|c| c.name == NOTES_REF)
            .flat_map(|c| [c.new, c.old])
            .flatten()
            .collect::<Vec<_>>()
    });
    let to = reflog_values(repo, NOTES_REF)
        .into_iter()
        .chain(recorded)
        .find(|&c| c != notes && notes_intact(repo, c));
    if !dry_run {
        refs::update(
            repo,
            &[RefChange::new(NOTES_REF, Some(notes), to)],
            "papayu gc --repair: back to the last intact notes",
        )?;
    }
    Ok(Repair {
        name: NOTES_REF.to_string(),
        from: Some(notes),
        to,
        lost: match to {
            Some(_) => "the note lines written after that commit".to_string(),
            None => "every plan in the notes: no intact notes commit was found".to_string(),
        },
    })
}

/// Points the log at the readable `chain` (rewritten without links to missing commits when
/// it is not whole) instead of `tip`.
fn repair_log(
    repo: &Repository,
    tip: Oid,
    (chain, chain_whole): (&[Entry], bool),
    dry_run: bool,
) -> Result<Repair, StoreError> {
    let lost = match chain.last().and_then(|e| e.op.previous.clone()) {
        Some(_) => "operations older than the missing entry (undo stops there)".to_string(),
        None if chain.first().map(|e| e.id) == Some(tip) => {
            "nothing: only links to missing commits".to_string()
        }
        None => "the newest operation(s), whose entries are missing".to_string(),
    };
    let to = match dry_run || chain_whole {
        true => chain.first().map(|e| e.id),
        false => rewrite_chain(repo, chain, Carried::default())?,
    };
    if !dry_run {
        refs::update(
            repo,
            &[RefChange::new(OPLOG_REF, Some(tip), to)],
            "papayu gc --repair: the operation log without missing entries",
        )?;
    }
    Ok(Repair {
        name: OPLOG_REF.to_string(),
        from: Some(tip),
        to,
        lost,
    })
}

/// Writes the reflog of `name` again without the entries that name missing commits or commits
/// whose parents are missing, each entry's old value being the one before it: `git fsck`
/// follows reflogs too.
fn forget_missing_in_reflog(repo: &Repository, name: &str) {
    let Ok(mut log) = repo.reflog(name) else {
        return;
    };
    let whole = |o: Oid| {
        repo.find_commit(o)
            .is_ok_and(|c| c.parent_ids().all(|p| repo.find_commit(p).is_ok()))
    };
    let all: Vec<(Oid, git2::Signature<'static>, Option<String>)> = log
        .iter()
        .map(|e| {
            (
                e.id_new(),
                e.committer().to_owned(),
                e.message().ok().flatten().map(str::to_string),
            )
        })
        .collect();
    let kept: Vec<_> = all.iter().filter(|(new, _, _)| whole(*new)).collect();
    let consistent = all.iter().enumerate().all(|(i, e)| {
        whole(e.0)
            && log
                .get(i)
                .is_some_and(|l| l.id_old().is_zero() || whole(l.id_old()))
    });
    if consistent {
        return;
    }
    while !log.is_empty() {
        if log.remove(0, false).is_err() {
            return;
        }
    }
    for (new, who, message) in kept.into_iter().rev() {
        let _ = log.append(*new, who, message.as_deref());
    }
    let _ = log.write();
}

/// Removes `refs/papayu/keep/<pid>` refs left by processes no longer running.
fn remove_stale_keeps(repo: &Repository) {
    let Ok(refs) = repo.references_glob("refs/papayu/keep/*") else {
        return;
    };
    let stale: Vec<String> = refs
        .flatten()
        .filter_map(|r| r.name().ok().map(str::to_string))
        .filter(|name| {
            let pid = name.rsplit('/').next().and_then(|p| p.parse::<u32>().ok());
            pid.is_none_or(|pid| !crate::store::process_alive(pid))
        })
        .collect();
    for name in stale {
        if let Ok(mut r) = repo.find_reference(&name) {
            let _ = r.delete();
        }
    }
}
