//! Checks on other machines: `apply --on` pushes a request, `worker` claims it by a
//! compare-and-swap push and pushes its verdicts under its own notes ref, and a clone counts
//! them only when a worker it trusts signed them.

use crate::common;

use std::path::{Path, PathBuf};

use common::{Run, TestRepo, clone_of, run_in};
use serde_json::Value;

/// A bare remote, the clone that asks (alice) and two worker clones (bob, carol).
struct Fleet {
    home: tempfile::TempDir,
    remote: PathBuf,
    alice: TestRepo,
    bob: TestRepo,
    carol: TestRepo,
}

fn fleet() -> Fleet {
    fleet_with(&[("a.txt", "one\n")])
}

/// A fleet whose project holds `files`.
fn fleet_with(files: &[(&str, &str)]) -> Fleet {
    let origin = TestRepo::with_files(files);
    let (home, remote) = common::bare_remote(&origin);
    let (alice, bob, carol) = (clone_of(&remote), clone_of(&remote), clone_of(&remote));
    for (repo, name) in [(&bob, "bob"), (&carol, "carol")] {
        repo.git(["config", "papayu.workerName", name]).ok();
    }
    Fleet {
        home,
        remote,
        alice,
        bob,
        carol,
    }
}

/// A plan that creates `path`, stored in `repo`; its id.
fn plan(repo: &TestRepo, goal: &str, path: &str) -> String {
    repo.plan_id(goal, &common::create_answer(path, "made\n"))
}

/// The check every test asks for: passes once `fix.txt` exists.
const CHECK: &str = "test -f fix.txt";

/// `apply --all --on origin --check CHECK` in alice's clone; the request's id.
fn ask_all(fleet: &Fleet) -> String {
    let run = fleet
        .alice
        .papayu([
            "--json", "apply", "--all", "--on", "origin", "--check", CHECK,
        ])
        .ok();
    json(&run)["request"]["id"]
        .as_str()
        .expect("a request id")
        .to_string()
}

fn json(run: &Run) -> Value {
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}\n{run:?}"))
}

/// The remote's refs under `prefix`: (name, object).
fn remote_refs(fleet: &Fleet, prefix: &str) -> Vec<(String, String)> {
    run_in(
        &fleet.remote,
        "git",
        ["for-each-ref", "--format=%(refname) %(objectname)", prefix],
        None,
    )
    .ok()
    .stdout
    .lines()
    .filter_map(|l| l.split_once(' '))
    .map(|(a, b)| (a.to_string(), b.to_string()))
    .collect()
}

/// What a claim on the remote says.
fn claim(fleet: &Fleet, id: &str) -> Value {
    let text = run_in(
        &fleet.remote,
        "git",
        ["show", &format!("refs/papayu/claims/{id}:claim.json")],
        None,
    )
    .ok()
    .stdout;
    serde_json::from_str(&text).expect("claim.json is JSON")
}

/// A new SSH key in the fleet's home: (private key path, public key line).
fn key(fleet: &Fleet, name: &str) -> Option<(PathBuf, String)> {
    if !common::tool("ssh-keygen", "workers sign their results with SSH keys") {
        return None;
    }
    let path = fleet.home.path().join(name);
    run_in(
        fleet.home.path(),
        "ssh-keygen",
        [
            "-q",
            "-t",
            "ed25519",
            "-N",
            "",
            "-C",
            name,
            "-f",
            path.to_str().unwrap(),
        ],
        None,
    )
    .ok();
    let public = std::fs::read_to_string(path.with_extension("pub"))
        .or_else(|_| std::fs::read_to_string(format!("{}.pub", path.display())))
        .expect("public key");
    Some((path, public.trim().to_string()))
}

fn use_key(repo: &TestRepo, key: &Path) {
    repo.git(["config", "papayu.workerKey", key.to_str().unwrap()])
        .ok();
}

/// The plans `list --json` shows, by id: (CHECK verdict status, remote state).
fn listed(repo: &TestRepo) -> Vec<(String, Option<String>, Option<String>)> {
    let run = repo.papayu(["--json", "list"]).ok();
    json(&run)["plans"]
        .as_array()
        .expect("plans")
        .iter()
        .map(|p| {
            (
                p["id"].as_str().unwrap().to_string(),
                p["verdict"]["status"].as_str().map(str::to_string),
                p["remote_check"]["state"].as_str().map(str::to_string),
            )
        })
        .collect()
}

fn fsck(fleet: &Fleet) {
    for repo in [&fleet.alice, &fleet.bob, &fleet.carol] {
        repo.fsck();
    }
    run_in(
        &fleet.remote,
        "git",
        ["fsck", "--strict", "--no-progress"],
        None,
    )
    .ok();
}

#[test]
fn workers_apply_on_pushes_proposals_and_a_request_and_returns_pending() {
    let fleet = fleet();
    let fix = plan(&fleet.alice, "fix it", "fix.txt");
    let other = plan(&fleet.alice, "something else", "other.txt");
    let id = ask_all(&fleet);
    // The proposal branches and the request branch are on the remote; the request names both.
    let branches = remote_refs(&fleet, "refs/heads/papayu/");
    assert_eq!(branches.len(), 3, "{branches:?}");
    let request = run_in(
        &fleet.remote,
        "git",
        [
            "show",
            &format!("refs/heads/papayu/check/{id}:request.json"),
        ],
        None,
    )
    .ok()
    .stdout;
    let request: Value = serde_json::from_str(&request).unwrap();
    assert_eq!(request["format"], 1);
    assert_eq!(request["check"]["command"], CHECK);
    let plans: Vec<&str> = request["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["plan"].as_str().unwrap())
        .collect();
    assert!(plans.contains(&fix.as_str()) && plans.contains(&other.as_str()));
    // No check ran here: both wait for the remote.
    for (_, verdict, remote) in listed(&fleet.alice) {
        assert_eq!(verdict, None);
        assert_eq!(remote.as_deref(), Some("pending"));
    }
    let text = fleet.alice.papayu(["list"]).ok().stdout;
    assert!(text.contains("pending on origin"), "{text}");
    let text = fleet.alice.papayu(["compare", &fix, &other]).ok().stdout;
    assert_eq!(text.matches("pending on origin").count(), 2, "{text}");
    fsck(&fleet);
}

#[test]
fn workers_a_looping_worker_waits_for_a_request_and_takes_it() {
    let fleet = fleet();
    plan(&fleet.alice, "fix it", "fix.txt");
    fleet.bob.git(["config", "papayu.workerPoll", "1"]).ok();
    let worker = std::thread::scope(|s| {
        let worker = s.spawn(|| {
            common::run_in(
                fleet.bob.path(),
                "timeout",
                [
                    "120", "git", "papayu", "--json", "worker", "--once", "--loop",
                ],
                None,
            )
        });
        std::thread::sleep(std::time::Duration::from_millis(1500));
        ask_all(&fleet);
        worker.join().unwrap().ok()
    });
    let took = &json(&worker)["requests"];
    assert!(
        took.as_array()
            .unwrap()
            .iter()
            .any(|r| r["outcome"] == "checked"),
        "{worker:?}"
    );
}

#[test]
fn workers_two_racing_for_one_claim_exactly_one_runs_it() {
    let fleet = fleet();
    plan(&fleet.alice, "fix it", "fix.txt");
    let id = ask_all(&fleet);
    let (bob, carol) = std::thread::scope(|s| {
        let bob = s.spawn(|| fleet.bob.papayu(["--json", "worker", "--once"]));
        let carol = s.spawn(|| fleet.carol.papayu(["--json", "worker", "--once"]));
        (bob.join().unwrap().ok(), carol.join().unwrap().ok())
    });
    let checked: Vec<&str> = [(&bob, "bob"), (&carol, "carol")]
        .into_iter()
        .filter(|(run, _)| {
            json(run)["requests"]
                .as_array()
                .unwrap()
                .iter()
                .any(|r| r["outcome"] == "checked")
        })
        .map(|(_, name)| name)
        .collect();
    assert_eq!(checked.len(), 1, "bob: {bob:?}\ncarol: {carol:?}");
    let results = remote_refs(&fleet, "refs/notes/papayu-checks/");
    assert_eq!(results.len(), 1, "{results:?}");
    assert!(results[0].0.ends_with(checked[0]));
    let claim = claim(&fleet, &id);
    assert_eq!(claim["state"], "done");
    assert_eq!(claim["worker"], checked[0]);
    fsck(&fleet);
}

/// Pushes a claim on request `id` by `worker`, running until `expires`, as a worker left it.
fn leave_claim(fleet: &Fleet, id: &str, worker: &str, expires: i64) {
    let repo = &fleet.carol;
    let text = serde_json::json!({
        "request": id, "worker": worker, "state": "running", "expires": expires, "at": 1
    })
    .to_string();
    let blob = common::run_in(
        repo.path(),
        "git",
        ["hash-object", "-w", "--stdin"],
        Some(text.as_bytes()),
    )
    .ok()
    .stdout;
    let entry = format!("100644 blob {}\tclaim.json\n", blob.trim());
    let tree = common::run_in(repo.path(), "git", ["mktree"], Some(entry.as_bytes()))
        .ok()
        .stdout;
    let commit = repo
        .git(["commit-tree", tree.trim(), "-m", "a claim left behind"])
        .ok()
        .stdout;
    repo.git([
        "push",
        "-q",
        "origin",
        &format!("{}:refs/papayu/claims/{id}", commit.trim()),
    ])
    .ok();
}

#[test]
fn workers_an_expired_lease_is_taken_over_and_a_live_one_is_not() {
    let fleet = fleet();
    plan(&fleet.alice, "fix it", "fix.txt");
    let id = ask_all(&fleet);
    // A lease that runs until 2100-01-01; Bob's clock is fixed a minute before, then after.
    let expires = 4_102_444_800_000;
    leave_claim(&fleet, &id, "ghost", expires);
    let before = [("PAPAYU_TIMESTAMP", "2099-12-31T23:59:00Z")];
    let held = fleet
        .bob
        .papayu_env(["--json", "worker", "--once"], &before)
        .ok();
    assert_eq!(json(&held)["requests"][0]["outcome"], "taken", "{held:?}");
    assert!(remote_refs(&fleet, "refs/notes/papayu-checks/").is_empty());

    let after = [("PAPAYU_TIMESTAMP", "2100-01-01T00:00:01Z")];
    let run = fleet
        .bob
        .papayu_env(["--json", "worker", "--once"], &after)
        .ok();
    assert_eq!(json(&run)["requests"][0]["outcome"], "checked", "{run:?}");
    assert!(run.stderr.contains("taking it over from ghost"), "{run:?}");
    let claim = claim(&fleet, &id);
    assert_eq!(
        (claim["worker"].as_str(), claim["state"].as_str()),
        (Some("bob"), Some("done"))
    );
    fsck(&fleet);
}

#[test]
fn workers_renew_their_lease_while_the_check_runs() {
    let fleet = fleet();
    plan(&fleet.alice, "fix it", "fix.txt");
    let run = fleet
        .alice
        .papayu([
            "--json",
            "apply",
            "--all",
            "--on",
            "origin",
            "--check",
            "sleep 2; test -f fix.txt",
        ])
        .ok();
    let id = json(&run)["request"]["id"].as_str().unwrap().to_string();
    fleet.bob.git(["config", "papayu.workerLease", "3"]).ok();
    fleet.bob.papayu(["worker", "--once"]).ok();
    // The claim, at least one renewal (every second), and the closing `done`, each a commit on
    // the last: the claim ref only ever moved forward.
    let count = run_in(
        &fleet.remote,
        "git",
        ["rev-list", "--count", &format!("refs/papayu/claims/{id}")],
        None,
    )
    .ok()
    .stdout;
    assert!(count.trim().parse::<u32>().unwrap() >= 3, "{count}");
    assert_eq!(claim(&fleet, &id)["state"], "done");
}

#[test]
fn workers_a_worker_that_cannot_finish_gives_the_request_back() {
    let fleet = fleet();
    if !common::tool("ssh-keygen", "workers sign their results with SSH keys") {
        return;
    }
    plan(&fleet.alice, "fix it", "fix.txt");
    let id = ask_all(&fleet);
    // A key file that is no key: the check runs, the signing fails.
    let broken = fleet.home.path().join("not-a-key");
    std::fs::write(&broken, "not a key\n").unwrap();
    use_key(&fleet.bob, &broken);
    fleet.bob.papayu(["worker", "--once"]).err("ERR_WORKER_KEY");
    let left = claim(&fleet, &id);
    assert_eq!(left["state"], "running");
    assert!(
        left["reason"].as_str().unwrap().contains("given back"),
        "{left}"
    );
    assert!(remote_refs(&fleet, "refs/notes/papayu-checks/").is_empty());
    // The next worker takes it over at once.
    let run = fleet.carol.papayu(["--json", "worker", "--once"]).ok();
    assert_eq!(json(&run)["requests"][0]["outcome"], "checked", "{run:?}");
    assert_eq!(claim(&fleet, &id)["worker"], "carol");
}

#[test]
fn workers_pushing_results_at_once_both_land_on_their_own_refs() {
    let fleet = fleet();
    plan(&fleet.alice, "fix it", "fix.txt");
    let first = fleet
        .alice
        .papayu([
            "--json", "apply", "--all", "--on", "origin", "--check", CHECK,
        ])
        .ok();
    plan(&fleet.alice, "another", "other.txt");
    let second = fleet
        .alice
        .papayu([
            "--json", "apply", "--all", "--on", "origin", "--check", CHECK,
        ])
        .ok();
    let ids = [&first, &second].map(|r| json(r)["request"]["id"].as_str().unwrap().to_string());
    std::thread::scope(|s| {
        let bob = s.spawn(|| fleet.bob.papayu(["worker", "--request", &ids[0]]));
        let carol = s.spawn(|| fleet.carol.papayu(["worker", "--request", &ids[1]]));
        bob.join().unwrap().ok();
        carol.join().unwrap().ok();
    });
    let results: Vec<String> = remote_refs(&fleet, "refs/notes/papayu-checks/")
        .into_iter()
        .map(|(name, _)| name)
        .collect();
    assert_eq!(
        results,
        [
            "refs/notes/papayu-checks/bob",
            "refs/notes/papayu-checks/carol"
        ]
    );
    // Each worker's note is on the commit it checked, read with git's own notes command.
    for (worker, id) in [("bob", &ids[0]), ("carol", &ids[1])] {
        let request: Value = serde_json::from_str(
            &run_in(
                &fleet.remote,
                "git",
                [
                    "show",
                    &format!("refs/heads/papayu/check/{id}:request.json"),
                ],
                None,
            )
            .ok()
            .stdout,
        )
        .unwrap();
        let commit = request["candidates"][0]["commit"].as_str().unwrap();
        let note = run_in(
            &fleet.remote,
            "git",
            [
                "notes",
                &format!("--ref=papayu-checks/{worker}"),
                "show",
                commit,
            ],
            None,
        )
        .ok()
        .stdout;
        assert!(note.contains("\\\"outcome\\\":\\\"checked\\\""), "{note}");
    }
    fleet.alice.papayu(["sync"]).ok();
    let verdicts: Vec<_> = listed(&fleet.alice);
    assert!(
        verdicts.iter().all(|(_, _, remote)| remote.is_none()),
        "{verdicts:?}"
    );
    fsck(&fleet);
}

#[test]
fn workers_a_trusted_worker_ranks_and_an_untrusted_one_is_a_claim() {
    let fleet = fleet();
    let (Some((bob_key, bob_pub)), Some((mallory_key, _))) =
        (key(&fleet, "bob"), key(&fleet, "mallory"))
    else {
        return;
    };
    let fix = plan(&fleet.alice, "fix it", "fix.txt");
    let other = plan(&fleet.alice, "something else", "other.txt");
    ask_all(&fleet);
    // Carol works under mallory's key, which alice does not trust.
    use_key(&fleet.carol, &mallory_key);
    fleet.carol.papayu(["worker", "--once"]).ok();
    fleet
        .alice
        .git([
            "config",
            "--add",
            "papayu.trustedWorkers",
            &format!("bob {bob_pub}"),
        ])
        .ok();
    fleet.alice.papayu(["sync"]).ok();
    let show = fleet.alice.papayu(["--json", "show", &fix]).ok();
    let claims = &json(&show)["claimed_checks"];
    assert_eq!(claims[0]["worker"], "carol", "{show:?}");
    assert_eq!(
        claims[0]["why"],
        "signed by a key papayu.trustedWorkers does not list"
    );
    let compared = fleet.alice.papayu(["--json", "compare", &fix, &other]).ok();
    for p in json(&compared)["proposals"].as_array().unwrap() {
        assert_eq!(p["check"]["status"], "unchecked", "{compared:?}");
    }
    let text = fleet.alice.papayu(["show", &fix]).ok().stdout;
    assert!(text.contains("by worker carol"), "{text}");

    // Bob's key is trusted: its verdicts rank as this clone's own would.
    let fleet2 = self::fleet();
    let fix = plan(&fleet2.alice, "fix it", "fix.txt");
    let other = plan(&fleet2.alice, "something else", "other.txt");
    ask_all(&fleet2);
    use_key(&fleet2.bob, &bob_key);
    fleet2.bob.papayu(["worker", "--once"]).ok();
    fleet2
        .alice
        .git([
            "config",
            "--add",
            "papayu.trustedWorkers",
            &format!("bob {bob_pub}"),
        ])
        .ok();
    fleet2.alice.papayu(["sync"]).ok();
    let compared = fleet2
        .alice
        .papayu(["--json", "compare", &fix, &other])
        .ok();
    let compared = json(&compared);
    assert_eq!(compared["ranking"][0], fix.as_str());
    let status = |id: &str| {
        compared["proposals"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["id"] == id)
            .unwrap()["check"]["status"]
            .clone()
    };
    assert_eq!(
        (status(&fix), status(&other)),
        ("passed".into(), "failed".into())
    );
    fsck(&fleet2);
}

#[test]
fn workers_a_result_whose_signature_does_not_verify_is_a_claim() {
    let fleet = fleet();
    let Some((bob_key, bob_pub)) = key(&fleet, "bob") else {
        return;
    };
    let fix = plan(&fleet.alice, "fix it", "fix.txt");
    let id = ask_all(&fleet);
    let _ = id;
    fleet
        .alice
        .git(["config", "--add", "papayu.trustedWorkers", &bob_pub])
        .ok();
    use_key(&fleet.bob, &bob_key);
    fleet.bob.papayu(["worker", "--once"]).ok();
    // Someone rewrites bob's verdict (failed → passed is what a forger wants; here the other
    // way round, to see it matters) and keeps bob's signature.
    let commit = fleet.alice.rev(&fleet.alice.proposal_branch());
    let note = fleet
        .bob
        .git(["notes", "--ref=papayu-checks/bob", "show", &commit])
        .ok()
        .stdout;
    let forged = note.trim().replace(
        "\\\"status\\\":\\\"passed\\\"",
        "\\\"status\\\":\\\"failed\\\"",
    );
    assert_ne!(forged, note.trim());
    fleet
        .carol
        .git([
            "fetch",
            "-q",
            "origin",
            "refs/notes/papayu-checks/bob:refs/notes/papayu-checks/forger",
        ])
        .ok();
    fleet
        .carol
        .git([
            "notes",
            "--ref=papayu-checks/forger",
            "add",
            "-f",
            "-m",
            &forged,
            &commit,
        ])
        .ok();
    fleet
        .carol
        .git(["push", "-q", "origin", "refs/notes/papayu-checks/forger"])
        .ok();
    // Only the forged line is read: bob's own ref is not fetched in this clone.
    fleet
        .alice
        .git([
            "fetch",
            "-q",
            "origin",
            "refs/notes/papayu-checks/forger:refs/notes/papayu-checks/forger",
        ])
        .ok();
    let show = json(&fleet.alice.papayu(["--json", "show", &fix]).ok());
    assert_eq!(
        show["claimed_checks"][0]["why"], "its signature does not verify",
        "{show}"
    );
    assert_eq!(show["check"]["status"], "unchecked", "{show}");
    // bob's true verdict, once fetched, verifies and counts.
    fleet.alice.papayu(["sync"]).ok();
    let show = json(&fleet.alice.papayu(["--json", "show", &fix]).ok());
    assert_eq!(show["check"]["status"], "passed", "{show}");
    fsck(&fleet);
}

#[test]
fn workers_a_stale_request_is_refused_after_the_proposal_branch_moved() {
    let fleet = fleet();
    plan(&fleet.alice, "fix it", "fix.txt");
    let id = ask_all(&fleet);
    let branch = fleet.alice.proposal_branch();
    // A teammate pushes a commit of their own onto the proposal branch.
    let bob = &fleet.bob;
    bob.git(["fetch", "-q", "origin", &format!("{branch}:{branch}")])
        .ok();
    bob.git(["checkout", "-q", &branch]).ok();
    bob.write("later.txt", "later\n");
    bob.commit_all("a later change");
    bob.git(["push", "-q", "origin", &branch]).ok();
    bob.git(["checkout", "-q", "main"]).ok();
    let run = fleet
        .carol
        .papayu(["worker", "--request", &id])
        .err("ERR_REQUEST_STALE");
    assert!(run.stderr.contains("moved"), "{run:?}");
    assert_eq!(claim(&fleet, &id)["state"], "stale");
    assert!(remote_refs(&fleet, "refs/notes/papayu-checks/").is_empty());
    fsck(&fleet);
}

#[test]
fn workers_a_worker_missing_the_command_reports_cannot_run() {
    let fleet = fleet();
    plan(&fleet.alice, "fix it", "fix.txt");
    let asked = fleet
        .alice
        .papayu([
            "--json",
            "apply",
            "--all",
            "--on",
            "origin",
            "--check",
            "papayu-no-such-tool --all",
        ])
        .ok();
    assert!(json(&asked)["request"]["id"].is_string());
    let run = fleet.bob.papayu(["worker", "--once"]).ok();
    assert!(run.stdout.contains("cannot run:"), "{run:?}");
    assert!(!run.stdout.contains(" failed"), "{run:?}");
    fleet.alice.papayu(["sync"]).ok();
    let listed = listed(&fleet.alice);
    assert_eq!(
        listed[0].1, None,
        "a check that could not run is no verdict: {listed:?}"
    );
    assert_eq!(listed[0].2.as_deref(), Some("cannot-run"));
    let text = fleet.alice.papayu(["list"]).ok().stdout;
    assert!(text.contains("cannot run on bob"), "{text}");
    let text = fleet.alice.papayu(["show"]).ok().stdout;
    assert!(
        text.contains("Check: cannot run on bob") && text.contains("not found"),
        "{text}"
    );
}

#[test]
fn workers_bad_input_is_refused_and_changes_nothing() {
    let fleet = fleet();
    plan(&fleet.alice, "fix it", "fix.txt");
    let before = fleet.alice.logical_snapshot();
    fleet
        .alice
        .papayu(["apply", "--all", "--on", "nowhere", "--check", CHECK])
        .err("ERR_NO_SUCH_REMOTE");
    fleet
        .alice
        .papayu(["apply", "--all", "--on", "origin"])
        .err("ERR_REQUEST_NO_CHECK");
    fleet
        .bob
        .papayu(["worker", "nowhere"])
        .err("ERR_NO_SUCH_REMOTE");
    fleet
        .bob
        .git(["config", "papayu.workerName", "no/slashes"])
        .ok();
    fleet
        .bob
        .papayu(["worker"])
        .err("ERR_WORKER_CONFIG_INVALID");
    assert_eq!(fleet.alice.logical_snapshot(), before);
    // A remote whose hook refuses the push: the proposal applied for it is taken back.
    let hook = fleet.remote.join("hooks").join("pre-receive");
    std::fs::write(&hook, "#!/bin/sh\necho 'no pushes today' >&2\nexit 1\n").unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    fleet
        .alice
        .papayu(["apply", "--all", "--on", "origin", "--check", CHECK])
        .err("ERR_REMOTE_FAILED");
    assert_eq!(fleet.alice.proposal_branch(), "");
    assert!(
        fleet
            .alice
            .git(["for-each-ref", "refs/papayu/requests/"])
            .ok()
            .stdout
            .is_empty()
    );
    std::fs::remove_file(&hook).unwrap();
    fsck(&fleet);
}

/// Pushes a request commit holding `text` to `papayu/check/<id>`.
fn push_request(fleet: &Fleet, id: &str, text: &str) {
    let repo = &fleet.carol;
    let blob = common::run_in(
        repo.path(),
        "git",
        ["hash-object", "-w", "--stdin"],
        Some(text.as_bytes()),
    )
    .ok()
    .stdout;
    let entry = format!("100644 blob {}\trequest.json\n", blob.trim());
    let tree = common::run_in(repo.path(), "git", ["mktree"], Some(entry.as_bytes()))
        .ok()
        .stdout;
    let commit = repo
        .git(["commit-tree", tree.trim(), "-m", "a request"])
        .ok()
        .stdout;
    repo.git([
        "push",
        "-q",
        "origin",
        &format!("{}:refs/heads/papayu/check/{id}", commit.trim()),
    ])
    .ok();
}

#[test]
fn workers_refuse_requests_from_a_newer_papayu_and_malformed_ones() {
    let fleet = fleet();
    push_request(
        &fleet,
        "0123456789ab",
        r#"{"format": 99, "papayu": "9.0.0", "anything": "new"}"#,
    );
    let run = fleet
        .bob
        .papayu(["worker", "--request", "0123456789ab"])
        .err("ERR_REQUEST_TOO_NEW");
    assert!(run.stderr.contains("9.0.0"), "{run:?}");
    push_request(
        &fleet,
        "ba9876543210",
        r#"{"format": 1, "candidates": "none"}"#,
    );
    fleet
        .bob
        .papayu(["worker", "--request", "ba9876543210"])
        .err("ERR_REQUEST_MALFORMED");
    fleet
        .bob
        .papayu(["worker", "--request", "ffffffffffff"])
        .err("ERR_REQUEST_NOT_FOUND");
    // Nothing was claimed, nothing was written.
    assert!(remote_refs(&fleet, "refs/papayu/claims/").is_empty());
    assert!(remote_refs(&fleet, "refs/notes/papayu-checks/").is_empty());
}

#[test]
fn workers_undo_withdraws_a_request_and_gc_a_finished_one() {
    let fleet = fleet();
    let fix = plan(&fleet.alice, "fix it", "fix.txt");
    let id = ask_all(&fleet);
    fleet.alice.papayu(["undo"]).ok();
    assert!(remote_refs(&fleet, "refs/heads/papayu/check/").is_empty());
    assert!(
        fleet
            .alice
            .git(["for-each-ref", "refs/papayu/requests/"])
            .ok()
            .stdout
            .is_empty()
    );
    fleet.alice.papayu(["redo"]).ok();
    assert_eq!(remote_refs(&fleet, "refs/heads/papayu/check/").len(), 1);
    // Checked, then discarded: gc withdraws the request and its claim.
    fleet.bob.papayu(["worker", "--once"]).ok();
    assert_eq!(remote_refs(&fleet, "refs/papayu/claims/").len(), 1);
    fleet.alice.papayu(["sync"]).ok();
    let fetched = || {
        fleet
            .alice
            .git(["for-each-ref", "refs/notes/remotes/origin/papayu-checks/"])
            .ok()
            .stdout
    };
    assert!(!fetched().is_empty());
    fleet.alice.papayu(["discard", &fix]).ok();
    let dry = fleet.alice.papayu(["gc", "--dry-run"]).ok();
    assert!(dry.stdout.contains("would withdraw 1"), "{dry:?}");
    assert_eq!(remote_refs(&fleet, "refs/heads/papayu/check/").len(), 1);
    let gc = fleet.alice.papayu(["gc"]).ok();
    assert!(gc.stdout.contains(&id), "{gc:?}");
    assert!(remote_refs(&fleet, "refs/heads/papayu/check/").is_empty());
    assert!(remote_refs(&fleet, "refs/papayu/claims/").is_empty());
    assert!(fetched().is_empty(), "{gc:?}");
    assert!(
        fleet
            .alice
            .git(["for-each-ref", "refs/papayu/requests/"])
            .ok()
            .stdout
            .is_empty()
    );
    fsck(&fleet);
}

/// The commits a worker's results ref on the remote annotates.
fn remote_results(fleet: &Fleet, worker: &str) -> Vec<String> {
    let listed = run_in(
        &fleet.remote,
        "git",
        [
            "notes",
            &format!("--ref=refs/notes/papayu-checks/{worker}"),
            "list",
        ],
        None,
    )
    .ok()
    .stdout;
    let mut on: Vec<String> = listed
        .lines()
        .filter_map(|l| l.split_once(' ').map(|(_, commit)| commit.to_string()))
        .collect();
    on.sort();
    on
}

#[test]
fn workers_drop_the_results_of_finished_requests_with_their_next_push() {
    let fleet = fleet();
    let first = plan(&fleet.alice, "fix it", "fix.txt");
    ask_all(&fleet);
    fleet.bob.papayu(["worker", "--once"]).ok();
    let checked = remote_results(&fleet, "bob");
    assert_eq!(checked.len(), 1, "one result: {checked:?}");
    // The proposal is discarded and gc withdraws its request; the result stays until bob's
    // next push, which carries a new request's result and drops the finished one.
    fleet.alice.papayu(["discard", &first]).ok();
    fleet.alice.papayu(["gc"]).ok();
    assert_eq!(remote_results(&fleet, "bob"), checked);
    plan(&fleet.alice, "fix it again", "fix.txt");
    ask_all(&fleet);
    fleet.bob.papayu(["worker", "--once"]).ok();
    let now = remote_results(&fleet, "bob");
    assert_eq!(now.len(), 1, "{now:?}");
    assert_ne!(now, checked, "the finished request's result is gone");
    // The new result is the new proposal's commit, and alice reads its verdict.
    fleet.alice.papayu(["sync"]).ok();
    let listed = fleet.alice.papayu(["list"]).ok().stdout;
    assert!(!listed.contains("pending"), "{listed}");
    fsck(&fleet);
}

#[test]
fn workers_ci_workflows_parse_as_yaml_and_name_the_one_step() {
    let repo = TestRepo::with_files(&[("a.txt", "one\n")]);
    for system in ["github", "gitlab", "forgejo"] {
        let run = repo.papayu(["ci", system]).ok();
        let text = &run.stdout;
        assert_eq!(text.matches("run papayu worker").count(), 1, "{text}");
        assert!(text.contains("papayu/check/"), "{text}");
        assert!(text.contains("git papayu worker origin --once"), "{text}");
        assert!(!text.contains('\t'), "YAML has no tabs: {text}");
        let python = common::run_in(
            repo.path(),
            "python3",
            [
                "-c",
                "import sys, yaml, json; print(json.dumps(yaml.safe_load(sys.stdin)))",
            ],
            Some(text.as_bytes()),
        );
        if python.status != Some(0) {
            common::skip(
                "python3 with PyYAML is not installed: the workflow is checked by structure only",
            );
            continue;
        }
        let doc: Value = serde_json::from_str(&python.stdout).unwrap();
        let script = match system {
            "gitlab" => {
                let job = &doc["run papayu worker"];
                assert!(job["rules"][0]["if"].as_str().unwrap().contains("papayu"));
                job["script"][0].as_str().unwrap().to_string()
            }
            _ => {
                // YAML 1.1 readers (PyYAML) read the key `on` as `true`; CI systems read `on`.
                let on = doc
                    .get("on")
                    .or_else(|| doc.get("true"))
                    .expect("an `on` key");
                assert_eq!(on["push"]["branches"][0], "papayu/check/**");
                let steps = doc["jobs"]["check"]["steps"].as_array().unwrap();
                let papayu: Vec<&Value> = steps
                    .iter()
                    .filter(|s| s["run"].as_str().is_some_and(|r| r.contains("git papayu")))
                    .collect();
                assert_eq!(papayu.len(), 1, "{steps:?}");
                assert_eq!(papayu[0]["name"], "run papayu worker");
                papayu[0]["run"].as_str().unwrap().to_string()
            }
        };
        assert!(
            script.contains("git papayu worker origin --once --request"),
            "{script}"
        );
    }
}

#[test]
fn workers_a_trusted_verdict_that_breaks_tests_blocks_the_merge_as_a_local_one_does() {
    if !common::tool("python3", "the check is a Python unittest run") {
        return;
    }
    let fleet = fleet_with(&[
        ("calc.py", "def add(a, b):\n    return a + b\n"),
        (
            "test_calc.py",
            "import unittest\nfrom calc import add\n\n\nclass Calc(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n",
        ),
    ]);
    let Some((bob_key, bob_pub)) = key(&fleet, "bob") else {
        return;
    };
    let answer = serde_json::json!({"summary": "break add", "actions": [{"kind": "UPDATE_FILE",
        "path": "calc.py", "content": "def add(a, b):\n    return a - b\n"}]})
    .to_string();
    let run = fleet.alice.papayu_stdin(
        [
            "--json",
            "plan",
            "break add",
            "--response",
            "-",
            "--protocol",
            "1",
        ],
        answer.as_bytes(),
    );
    let plan: Value = serde_json::from_str(&run.ok().stdout).unwrap();
    let id = plan["plans"][0]["plan"]["id"].as_str().unwrap().to_string();
    fleet
        .alice
        .papayu([
            "apply",
            &id,
            "--on",
            "origin",
            "--check",
            "python3 -m unittest -v 2>&1",
        ])
        .ok();
    use_key(&fleet.bob, &bob_key);
    let worked = fleet.bob.papayu(["--json", "worker", "--once"]).ok();
    assert_eq!(
        json(&worked)["requests"][0]["results"][0]["check"]["breaks"],
        1,
        "{worked:?}"
    );
    fleet.alice.papayu(["sync"]).ok();
    // Untrusted, the verdict decides nothing: nothing stands in the merge's way but a dry run.
    let show = json(&fleet.alice.papayu(["--json", "show", &id]).ok());
    assert_eq!(show["check"]["status"], "unchecked");
    fleet
        .alice
        .git([
            "config",
            "--add",
            "papayu.trustedWorkers",
            &format!("bob {bob_pub}"),
        ])
        .ok();
    let before = fleet.alice.rev("main");
    fleet.alice.papayu(["merge", &id]).err("ERR_CHECK_BROKE");
    assert_eq!(fleet.alice.rev("main"), before);
}
