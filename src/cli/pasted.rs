//! Answers recorded elsewhere (a chat, another tool, a replay) read from files with
//! `--response`, checked and stored as plans without asking a model.

use std::io::Read;
use std::path::PathBuf;

use git_papayu::engine::plan::{self, CheckOptions, Planned, Provenance};
use git_papayu::store::Store;
use git_papayu::store::records::now_millis;
use git_papayu::trace::conversation;
use git_papayu::trace::record::{self, Tracer};
use git_papayu::{Code, Problem};

use super::ui;

/// Reads a file, or stdin for `-`.
pub fn read_input(path: &std::path::Path) -> Result<Vec<u8>, Problem> {
    if path.as_os_str() == "-" {
        let mut buf = Vec::new();
        std::io::stdin()
            .read_to_end(&mut buf)
            .map_err(|e| Problem::new(Code::InputUnreadable, format!("reading stdin: {e}")))?;
        Ok(buf)
    } else {
        std::fs::read(path).map_err(|e| {
            Problem::new(
                Code::InputUnreadable,
                format!("reading {}: {e}", path.display()),
            )
        })
    }
}

/// What pasted answers are: fixes (naming the reproduction they are checked against, if any),
/// or a reproduction.
#[derive(Debug, Default)]
pub struct Kind {
    pub kind: Option<git_papayu::store::records::PlanKind>,
    pub repro: Option<String>,
}

/// Stores the answers in `files` as plans of `goal` on `base`, in one operation: each its own
/// plan, all of them one group when there are several. Every answer is read and checked first
/// (a reproduction: that it only touches test files); when one fails, none is stored and the
/// failure names its file.
pub fn pasted(
    store: &Store,
    config: &git_papayu::settings::Settings,
    (base, goal): (git_papayu::store::Oid, &str),
    files: &[PathBuf],
    (how, kind): (&CheckOptions<'_>, &Kind),
) -> Result<Vec<Planned>, git_papayu::codes::Problems> {
    if files.iter().filter(|f| f.as_os_str() == "-").count() > 1 {
        return Err(Problem::new(
            Code::Usage,
            "--response - reads standard input, which holds one answer; give the others as files",
        )
        .into());
    }
    let group = (files.len() > 1).then(git_papayu::engine::compare::new_group_id);
    let tracer = Tracer::new(config, ui::warn);
    let mut spinner = ui::Spinner::new("plan");
    spinner.set_message("checking the answers and building the previews");
    let mut checked = Vec::new();
    // One millisecond apart, so the answers are ordered as the files were given.
    let now = now_millis();
    for (n, file) in files.iter().enumerate() {
        let answer = read_input(file)?;
        let mut provenance = Provenance {
            goal: goal.to_string(),
            provider: "manual".to_string(),
            model: None,
            trace_id: uuid::Uuid::new_v4().to_string(),
            created_at: now + i64::try_from(n).unwrap_or(0),
            schema_hash: None,
            stats: None,
            group: group.clone(),
            sample: group
                .as_ref()
                .map(|_| u32::try_from(n + 1).unwrap_or(u32::MAX)),
            conversation: None,
            kind: kind.kind,
            repro: kind.repro.clone(),
        };
        let mut t = tracer.start("plan", Some(provenance.trace_id.clone()));
        t.goal = Some(provenance.goal.clone());
        t.base = Some(base.to_string());
        t.transcript.provider = provenance.provider.clone();
        let mut transcript = t.transcript.clone();
        transcript.answers = vec![String::from_utf8_lossy(&answer).into_owned()];
        tracer.conversation(&mut t, transcript);
        provenance.conversation = Some(conversation::of_trace(&t));
        let checked_answer =
            plan::check_answer(store, base, &answer, how).and_then(|c| match kind.kind {
                Some(_) => git_papayu::engine::repro::only_tests(&c.plan)
                    .map(|()| c)
                    .map_err(Into::into),
                None => Ok(c),
            });
        match checked_answer {
            Ok(candidate) => checked.push((candidate, provenance, t)),
            Err(problems) => {
                spinner.clear();
                tracer.write_failed(store, &mut t, &problems);
                return Err(named(problems, file, files.len()));
            }
        }
    }
    spinner.clear();
    let (plans, mut traces): (Vec<_>, Vec<_>) = checked
        .into_iter()
        .map(|(candidate, provenance, t)| ((candidate, provenance), t))
        .unzip();
    let stored = plan::store_plans(store, plans)?;
    for (planned, t) in stored.iter().zip(traces.iter_mut()) {
        record::plan_stored(t, planned);
        tracer.write(store, t);
    }
    Ok(stored)
}

/// The problems of one answer among several, each saying which file it came from.
fn named(
    mut problems: git_papayu::codes::Problems,
    file: &std::path::Path,
    of: usize,
) -> git_papayu::codes::Problems {
    if of > 1 {
        for p in problems.iter_mut() {
            p.reason = format!("{}: {}; no answer was stored", file.display(), p.reason);
        }
    }
    problems
}

/// Stores an agent's own plan text (MCP), with its conversation (the goal and the answer): a
/// fix, or with `kind` a reproduction (refused unless it only touches test files).
pub fn agent_answer(
    store: &Store,
    config: &git_papayu::settings::Settings,
    (goal, base): (String, git_papayu::store::Oid),
    answer: &str,
    (agent, kind): (&str, &Kind),
) -> Result<Planned, Vec<Problem>> {
    // Traced as `plan --response` traces a pasted answer: the same files, the same events.
    let tracer = Tracer::new(config, ui::warn);
    let trace_id = uuid::Uuid::new_v4().to_string();
    let mut t = tracer.start("plan", Some(trace_id.clone()));
    t.goal = Some(goal.clone());
    t.base = Some(base.to_string());
    t.transcript.provider = "mcp".to_string();
    t.transcript.model = agent.to_string();
    let mut transcript = t.transcript.clone();
    transcript.answers = vec![answer.to_string()];
    tracer.conversation(&mut t, transcript);
    let provenance = Provenance {
        goal,
        provider: "mcp".to_string(),
        model: Some(agent.to_string()),
        trace_id,
        created_at: now_millis(),
        schema_hash: None,
        stats: None,
        conversation: Some(conversation::of_trace(&t)),
        group: None,
        sample: None,
        kind: kind.kind,
        repro: kind.repro.clone(),
    };
    let how = CheckOptions {
        protocol: None,
        mode: git_papayu::protocol::Mode::Plan,
        normalize_eol: super::validate::normalize_eol(config),
        allowlist: None,
        seen: git_papayu::engine::plan::Seen::Pasted,
    };
    match plan::make_pasted(store, base, answer.as_bytes(), &how, provenance) {
        Ok(planned) => {
            record::plan_stored(&mut t, &planned);
            tracer.write(store, &t);
            Ok(planned)
        }
        Err(problems) => {
            tracer.write_failed(store, &mut t, &problems);
            Err(problems)
        }
    }
}
