//! `git papayu ci`: a workflow file that makes a CI system a worker.
//!
//! CI systems start jobs for pushed branches only, so the workflow is triggered by pushes of
//! `papayu/check/**` — the request branches `apply --on` pushes — and its one papayu step runs
//! `git papayu worker --once` for the request of the branch that started it. The runner needs
//! a full clone (the proposals and their bases), push access to the remote (claims and result
//! notes), and the worker's SSH key in a secret (docs/teams.md).

/// The CI systems papayu writes a workflow for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum System {
    Github,
    Gitlab,
    Forgejo,
}

/// The name every workflow gives its one papayu step.
pub const STEP: &str = "run papayu worker";

/// The shell of the papayu step: the key from the secret, then one worker round for the request
/// whose branch was pushed. `branch` is how the system names the pushed branch.
fn step_script(branch: &str) -> String {
    format!(
        r#"set -eu
if [ -n "${{PAPAYU_WORKER_KEY:-}}" ]; then
  umask 077
  printf '%s\n' "$PAPAYU_WORKER_KEY" > "$RUNNER_TEMP_DIR/papayu_worker_key"
  git config papayu.workerKey "$RUNNER_TEMP_DIR/papayu_worker_key"
fi
git papayu worker origin --once --request "${{{branch}#papayu/check/}}""#
    )
}

fn indent(text: &str, by: usize) -> String {
    let pad = " ".repeat(by);
    text.lines()
        .map(|l| match l.is_empty() {
            true => String::new(),
            false => format!("{pad}{l}"),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Where the workflow goes in the repository, and its text.
pub fn workflow(system: System) -> (&'static str, String) {
    match system {
        System::Github => (
            ".github/workflows/papayu-check.yml",
            actions("ubuntu-latest", "actions/checkout@v4"),
        ),
        System::Forgejo => (
            ".forgejo/workflows/papayu-check.yml",
            actions("docker", "https://code.forgejo.org/actions/checkout@v4"),
        ),
        System::Gitlab => (".gitlab-ci.yml", gitlab()),
    }
}

/// GitHub Actions and Forgejo Actions share one syntax.
fn actions(runs_on: &str, checkout: &str) -> String {
    format!(
        r#"# Made by `git papayu ci`: this CI system is a papayu worker. A push of a check request
# (git papayu apply --on origin) starts one job, which checks the request's proposals and
# pushes signed verdicts to refs/notes/papayu-checks/<worker>. See docs/teams.md.
name: papayu check
on:
  push:
    branches: ['papayu/check/**']
permissions:
  contents: write
jobs:
  check:
    runs-on: {runs_on}
    timeout-minutes: 60
    steps:
      - uses: {checkout}
        with:
          fetch-depth: 0
      - name: install git-papayu
        run: cargo install --locked git-papayu
      - name: {STEP}
        env:
          PAPAYU_WORKER_KEY: ${{{{ secrets.PAPAYU_WORKER_KEY }}}}
          RUNNER_TEMP_DIR: ${{{{ runner.temp }}}}
        run: |
{script}
"#,
        script = indent(&step_script("GITHUB_REF_NAME"), 10)
    )
}

/// GitLab runs jobs, not steps: the job is the one papayu step, named like the others.
fn gitlab() -> String {
    format!(
        r#"# Made by `git papayu ci gitlab`: this CI system is a papayu worker. A push of a check
# request (git papayu apply --on origin) starts one job, which checks the request's proposals
# and pushes signed verdicts to refs/notes/papayu-checks/<worker>. See docs/teams.md.
"{STEP}":
  rules:
    - if: '$CI_COMMIT_BRANCH =~ /^papayu\/check\//'
  image: rust:latest
  variables:
    GIT_DEPTH: "0"
    RUNNER_TEMP_DIR: /tmp
  before_script:
    - cargo install --locked git-papayu
    - git remote set-url origin "https://papayu:${{PAPAYU_PUSH_TOKEN}}@${{CI_SERVER_HOST}}/${{CI_PROJECT_PATH}}.git"
  script:
    - |
{script}
"#,
        script = indent(&step_script("CI_COMMIT_BRANCH"), 6)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_workflow_names_the_one_step_and_the_request_branches() {
        for system in [System::Github, System::Gitlab, System::Forgejo] {
            let (path, text) = workflow(system);
            assert!(path.ends_with(".yml"));
            assert_eq!(text.matches(STEP).count(), 1, "{text}");
            assert!(text.contains("papayu/check/"));
            assert!(text.contains("git papayu worker origin --once"));
        }
    }
}
