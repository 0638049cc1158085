//! No input makes the binary panic: notes and operation-log entries written by hand or by a
//! broken tool, odd environments, dangling refs. Each command ends with a code and a status of
//! 0–3, and a failure of git underneath exits 3. A small deterministic fuzzer drives it.

use crate::common;

use common::{Rng, TestRepo};
use serde_json::{Value, json};

fn weird_values() -> Vec<Value> {
    vec![
        Value::Null,
        json!(-1),
        json!(u64::MAX),
        json!(i64::MIN),
        json!(1e308),
        json!(""),
        json!("x".repeat(3000)),
        json!("é\u{202e}"),
        json!([]),
        json!({}),
        json!(true),
        json!("0".repeat(40)),
        json!("../../etc/passwd"),
        json!("a\u{0}b"),
        json!(0.5),
        json!("ffff"),
    ]
}

/// Runs `args` and checks it ended the way every command must.
fn well_behaved(repo: &TestRepo, args: &[&str], env: &[(&str, &str)], context: &str) {
    let run = repo.papayu_env(args.to_vec(), env);
    let status = run.status.unwrap_or(-1);
    assert!(
        (0..=3).contains(&status) && !run.stderr.contains("panicked"),
        "{args:?} ended with {status}\n{}\ninput: {context}",
        run.stderr
    );
    if status != 0 {
        // The code is on stderr, or in the JSON document under --json.
        let said = format!("{}{}", run.stderr, run.stdout);
        assert!(
            said.contains("ERR_"),
            "{args:?}: no code ({status})\n{said}"
        );
    }
    if args.contains(&"--json") {
        serde_json::from_str::<Value>(&run.stdout)
            .unwrap_or_else(|e| panic!("{args:?}: not JSON ({e})\n{}", run.stdout));
    }
}

#[test]
fn malformed_notes_log_entries_and_environments_never_panic() {
    let repo = TestRepo::with_files(&[("f.txt", "a\nb\n")]);
    let answer = json!({"summary": "s", "actions": [
        {"kind": "CREATE_FILE", "path": "g.txt", "content": "g\n"}]})
    .to_string();
    repo.papayu_stdin(["plan", "goal", "--response", "-"], answer.as_bytes())
        .ok();
    let head = repo.rev("HEAD");
    let note = repo
        .git(["notes", "--ref=papayu", "show", &head])
        .ok()
        .stdout;
    let record: Value = serde_json::from_str(note.lines().next().unwrap()).unwrap();
    let id = record["id"].as_str().unwrap().to_string();
    let short = &id[..8];
    let weird = weird_values();
    let keys: Vec<String> = record.as_object().unwrap().keys().cloned().collect();
    let dates = [
        "garbage",
        "@0 +0000",
        "1700000000 +9999",
        "@99999999999999999 +0000",
        "2026-02-30T25:61:61Z",
        "",
    ];
    let commands: Vec<Vec<&str>> = vec![
        vec!["list"],
        vec!["--json", "list"],
        vec!["show", short],
        vec!["apply", "--no-check"],
        vec!["diff", short],
        vec!["merge", short],
        vec!["discard", short],
        vec!["undo"],
        vec!["--json", "redo"],
    ];
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for round in 0..16 {
        let mut lines = vec![note.lines().next().unwrap().to_string()];
        for _ in 0..1 + rng.below(4) {
            let mut r = record.clone();
            for _ in 0..1 + rng.below(3) {
                let key = rng.pick(&keys).clone();
                r[key] = rng.pick(&weird).clone();
            }
            if rng.below(2) == 0 && r["actions"][0].is_object() {
                r["actions"][0]["path"] = rng.pick(&weird).clone();
            }
            lines.push(r.to_string());
            lines.push(
                json!({"plan": id, "event": rng.pick(&["applied", "merged", "discarded",
                    "undone", "bogus"]), "at": rng.pick(&weird), "branch": rng.pick(&weird),
                    "commit": rng.pick(&[json!(head), json!("0".repeat(40)), json!("zz")]),
                    "cancels": rng.pick(&weird)})
                .to_string(),
            );
        }
        if rng.below(3) == 0 {
            lines.push("{not json".to_string());
        }
        let text = lines.join("\n");
        repo.git(["notes", "--ref=papayu", "add", "-f", "-m", &text, &head])
            .ok();
        if rng.below(3) == 0 {
            // A log entry someone wrote by hand.
            let entry = json!({"op": rng.pick(&["apply", "merge", "undo", "redo", "nope"]),
                "description": rng.pick(&weird), "at": rng.pick(&weird),
                "refs": [{"name": rng.pick(&weird), "old": rng.pick(&weird), "new": rng.pick(&weird)}],
                "previous": rng.pick(&weird), "target": rng.pick(&weird)});
            let tree = repo.git(["write-tree"]).ok().stdout.trim().to_string();
            let message = format!("papayu: by hand\n\n{entry}");
            let commit = repo
                .git(["commit-tree", &tree, "-m", &message])
                .ok()
                .stdout
                .trim()
                .to_string();
            repo.git(["update-ref", "refs/papayu/oplog", &commit]).ok();
        }
        let date = *rng.pick(&dates);
        let env = [("GIT_COMMITTER_DATE", date), ("GIT_AUTHOR_DATE", date)];
        for args in &commands {
            well_behaved(
                &repo,
                args,
                &env,
                &format!("round {round}, date {date:?}:\n{text}"),
            );
        }
    }
    repo.fsck();
}

#[test]
fn a_dangling_papayu_ref_is_reported_with_its_repair_and_status_3() {
    let repo = TestRepo::with_files(&[("f.txt", "a\n")]);
    let missing = "1234567890123456789012345678901234567890";
    std::fs::create_dir_all(repo.path().join(".git/refs/notes")).unwrap();
    std::fs::write(
        repo.path().join(".git/refs/notes/papayu"),
        format!("{missing}\n"),
    )
    .unwrap();
    let before = repo.snapshot();
    let run = repo.papayu(["list"]).code(3);
    assert!(run.stderr.contains("ERR_REF_DAMAGED"), "{}", run.stderr);
    assert!(run.stderr.contains("gc --repair"), "{}", run.stderr);
    let doc: Value = serde_json::from_str(&repo.papayu(["--json", "list"]).code(3).stdout).unwrap();
    assert_eq!(doc["errors"][0]["code"], "ERR_REF_DAMAGED");
    assert_eq!(repo.snapshot(), before);
    // The user's own missing file is not a failure underneath: status 1.
    repo.papayu(["validate", "nope.json"])
        .err("ERR_INPUT_UNREADABLE");
    // Nothing intact to go back to: the ref goes, and papayu works again.
    let run = repo.papayu(["gc", "--repair"]).ok();
    assert!(run.stdout.contains("refs/notes/papayu"), "{}", run.stdout);
    assert!(
        repo.git(["rev-parse", "-q", "--verify", "refs/notes/papayu"])
            .status
            != Some(0)
    );
    repo.papayu(["list"]).ok();
}

/// Removes a loose object, as `git gc --prune=now` racing a write does.
fn prune_object(repo: &TestRepo, oid: &str) {
    let path = repo
        .path()
        .join(".git/objects")
        .join(&oid[..2])
        .join(&oid[2..]);
    std::fs::remove_file(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}

const ANSWER: &str =
    r#"{"summary":"Add g","actions":[{"kind":"CREATE_FILE","path":"g.txt","content":"g\n"}]}"#;

#[test]
fn notes_and_log_refs_on_pruned_commits_go_back_to_their_last_intact_commits() {
    let repo = TestRepo::with_files(&[("f.txt", "a\n")]);
    repo.papayu(["init"]).ok();
    let first = repo.plan_id("First", ANSWER);
    let intact = repo.rev("refs/notes/papayu");
    let second = repo.plan_id("Second", ANSWER);
    let damaged = repo.rev("refs/notes/papayu");
    assert_eq!(repo.rev("refs/notes/papayu^"), intact);
    prune_object(&repo, &damaged);

    for args in [&["list"][..], &["show", &first[..8]], &["undo"]] {
        let run = repo.papayu(args).code(3);
        assert!(
            run.stderr.contains("ERR_REF_DAMAGED") && run.stderr.contains("gc --repair"),
            "{args:?}: {}",
            run.stderr
        );
    }
    let before = repo.snapshot();
    let run = repo.papayu(["gc", "--repair", "--dry-run"]).ok();
    assert!(run.stdout.contains("would move"), "{}", run.stdout);
    assert_eq!(repo.snapshot(), before, "a dry run changes nothing");

    let run = repo.papayu(["gc", "--repair"]).ok();
    assert!(run.stdout.contains("refs/notes/papayu"), "{}", run.stdout);
    assert_eq!(repo.rev("refs/notes/papayu"), intact);
    let list = repo.papayu(["list"]).ok().stdout;
    assert!(
        list.contains(&first[..10]) && !list.contains(&second[..10]),
        "{list}"
    );
    repo.fsck();

    // The log's newest entry is pruned: the log goes back to the entry before it.
    let branch: Value = serde_json::from_str(
        &repo
            .papayu(["apply", &first[..8], "--no-check", "--json"])
            .ok()
            .stdout,
    )
    .unwrap();
    let branch = branch["branch"].as_str().unwrap().to_string();
    let before_apply = repo.rev("refs/papayu/oplog^");
    prune_object(&repo, &repo.rev("refs/papayu/oplog"));
    repo.papayu(["undo"]).code(3);
    repo.papayu(["gc", "--repair"]).ok();
    assert_eq!(repo.rev("refs/papayu/oplog"), before_apply);
    repo.fsck();
    // The apply's entry is lost, so undo takes back the operation before it; the branch stays.
    repo.papayu(["list"]).ok();
    repo.papayu(["undo"]).ok();
    assert_eq!(
        repo.git(["rev-parse", "-q", "--verify", &branch]).status,
        Some(0)
    );
    let again = repo.papayu(["gc", "--repair"]).ok();
    assert!(again.stdout.contains("intact"), "{}", again.stdout);
    repo.fsck();
}

#[cfg(target_os = "linux")]
#[test]
fn a_merge_whose_papayu_was_killed_is_recorded_by_the_next_command_and_undoable() {
    use std::os::unix::fs::PermissionsExt;
    let repo = TestRepo::with_files(&[("f.txt", "a\n")]);
    repo.papayu(["init"]).ok();
    let id = repo.plan_id("Add g", ANSWER);
    let applied: Value = serde_json::from_str(
        &repo
            .papayu(["apply", &id[..8], "--no-check", "--json"])
            .ok()
            .stdout,
    )
    .unwrap();
    let branch = applied["branch"].as_str().unwrap().to_string();
    let tip = repo.rev(&branch);
    repo.write("h.txt", "h\n");
    let old = repo.commit_all("h");

    // git's post-merge hook kills papayu, the merge's parent: git has merged, papayu recorded
    // nothing.
    let hook = repo.path().join(".git/hooks/post-merge");
    std::fs::create_dir_all(hook.parent().unwrap()).unwrap();
    std::fs::write(
        &hook,
        "#!/bin/sh\nkill -9 \"$(awk '/^PPid:/ {print $2}' /proc/$PPID/status)\"\n",
    )
    .unwrap();
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
    let run = repo.papayu(["merge", &id[..8]]);
    assert_eq!(
        run.status,
        Some(128 + 9),
        "papayu was killed\n{}",
        run.stderr
    );
    std::fs::remove_file(&hook).unwrap();
    let merged = repo.rev("main");
    assert_ne!(merged, old);
    repo.git(["merge-base", "--is-ancestor", &tip, "main"]).ok();
    let newest = |repo: &TestRepo| {
        repo.git(["log", "-1", "--format=%s", "refs/papayu/oplog"])
            .ok()
            .stdout
    };
    assert!(
        newest(&repo).starts_with("papayu apply"),
        "{}",
        newest(&repo)
    );

    // The next command records the merge as the operation it was.
    let run = repo.papayu(["list"]).ok();
    assert!(run.stderr.contains("recorded the merge"), "{}", run.stderr);
    assert!(
        newest(&repo).starts_with("papayu merge"),
        "{}",
        newest(&repo)
    );
    // The event is on the plan's own note (the note of the object its id names).
    let note = repo.git(["notes", "--ref=papayu", "show", &id]).ok().stdout;
    assert!(note.contains("\"merged\""), "{note}");
    assert!(repo.git(["rev-parse", "-q", "--verify", &branch]).status != Some(0));
    let show: Value =
        serde_json::from_str(&repo.papayu(["show", &id[..8], "--json"]).ok().stdout).unwrap();
    assert_eq!(show["status"], "merged");
    let again = repo.papayu(["list"]).ok();
    assert!(
        !again.stderr.contains("recorded"),
        "recorded once: {}",
        again.stderr
    );

    repo.papayu(["undo"]).ok();
    assert_eq!(repo.rev("main"), old);
    assert_eq!(repo.rev(&branch), tip);
    repo.fsck();
}

/// Which plan each proposal branch carries out is remembered by tip commit: the remembered
/// answer is the one the commits give, and a damaged or missing memory changes nothing.
#[test]
fn remembered_branch_owners_agree_with_the_commits_whatever_the_file_holds() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let answer = |path: &str| {
        format!(
            r#"{{"summary": "add {path}", "actions": [{{"kind": "CREATE_FILE", "path": "{path}", "content": "x\n"}}]}}"#
        )
    };
    let one = repo.plan_id("Add b", &answer("b.txt"));
    repo.papayu(["apply", &one, "--no-check"]).ok();
    let two = repo.plan_id("Add c", &answer("c.txt"));
    let applied = repo
        .papayu(["--json", "apply", &two, "--no-check"])
        .ok()
        .stdout;
    let applied: Value = serde_json::from_str(&applied).unwrap();
    let branch = applied["branch"].as_str().expect("a branch").to_string();
    // A commit of the user's on the second proposal: foreign, above the plan's own commit.
    repo.git(["switch", "-q", &branch]).ok();
    repo.write("d.txt", "mine\n");
    repo.commit_all("my own change");
    repo.git(["switch", "-q", "-"]).ok();

    let list = || repo.papayu(["--json", "list", "--all"]).ok().stdout;
    let first = list();
    let file = repo.path().join(".git/papayu/cache/owners-v1");
    let remembered = std::fs::read_to_string(&file).expect("owners are remembered");
    let tip = repo.rev(&branch);
    assert!(
        remembered
            .lines()
            .any(|l| l.starts_with(&tip) && l.contains(&two)),
        "{remembered}"
    );
    assert_eq!(list(), first, "read from memory: the same answer");

    let tip_upper = tip.to_uppercase();
    let short = &tip[..20];
    std::fs::write(
        &file,
        format!("garbage\n{tip_upper} {one} {tip_upper}\n{short} -\n{tip} {one} {tip}"),
    )
    .unwrap();
    assert_eq!(list(), first, "damaged lines are ignored");
    std::fs::remove_file(&file).unwrap();
    assert_eq!(list(), first, "without the file: the commits again");
    repo.fsck();
}
