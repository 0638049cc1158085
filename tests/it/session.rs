//! The plan session as a library, the way a second front end (a server, an editor) calls it:
//! no terminal, progress through a callback, and the same traces the command line writes.

use std::collections::BTreeMap;
use std::sync::Mutex;

use crate::common;

use common::TestRepo;
use common::fake_llm::{self, FakeLlm};
use git_papayu::ask::session::{self, Ask, NoRecords, Session};
use git_papayu::ask::{LoopEvent, Progress};
use git_papayu::settings::Settings;
use git_papayu::store::Store;
use git_papayu::trace::record::Tracer;

const CALC: &str = "def add(a, b):\n    return a + b\n";

fn answer() -> String {
    serde_json::json!({
        "summary": "write NOTES.md",
        "actions": [{"kind": "CREATE_FILE", "path": "NOTES.md", "content": "notes\n"}]
    })
    .to_string()
}

fn ask(store: &Store) -> Ask {
    Ask::plan(
        "write NOTES.md".to_string(),
        git_papayu::engine::plan::resolve_base(store, "HEAD").expect("a base"),
    )
}

/// The settings a front end would hand the session: no git config, an environment pointing at
/// the fake server.
fn env(fake: &FakeLlm) -> Settings {
    let vars: BTreeMap<String, String> = [
        ("PAPAYU_LLM_API_URL", format!("{}/v1", fake.url())),
        ("PAPAYU_LLM_MODEL", "session-model".to_string()),
        ("PAPAYU_LLM_RETRY_BASE_MS", "1".to_string()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    Settings::from_parts(Vec::new(), vars)
}

fn block_on<F: std::future::Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime")
        .block_on(future)
}

#[test]
fn a_front_end_asks_through_the_session_and_keeps_its_trace() {
    let repo = TestRepo::with_files(&[("calc.py", CALC)]);
    repo.git(["config", "papayu.trace", "true"]).ok();
    let fake = FakeLlm::start(vec![fake_llm::openai_chat(&answer())]);
    let store = Store::open_at(repo.path()).expect("a store");
    let session = Session::open(&store, ask(&store), &env(&fake)).expect("a session");
    assert_eq!(
        session.providers().len(),
        1,
        "one provider is configured: {:?}",
        session.providers()
    );
    let events = Mutex::new(Vec::new());
    let progress = |p| {
        if let Progress::Event(e) = p {
            events.lock().expect("not poisoned").push(e);
        }
    };
    let warnings = std::sync::Arc::new(Mutex::new(Vec::new()));
    let heard = std::sync::Arc::clone(&warnings);
    let tracer = Tracer::new(&Settings::load(&store), move |w: &str| {
        heard.lock().expect("not poisoned").push(w.to_string())
    });
    let answers = block_on(session.ask(&store, &tracer, "plan", &progress)).expect("a candidate");
    assert!(answers.failures.is_empty(), "{:?}", answers.failures);
    let planned = session::store_all(&store, &tracer, answers.candidates).expect("stored");
    assert_eq!(planned.len(), 1);

    let events = events.into_inner().expect("not poisoned");
    assert!(
        events.iter().any(
            |e| matches!(e, LoopEvent::LlmResponseOk { provider, .. } if !provider.is_empty())
        ),
        "the session reports its events as data: {events:?}"
    );
    let sent = events
        .iter()
        .find(|e| matches!(e, LoopEvent::LlmRequestSent { .. }))
        .expect("a request was sent");
    assert!(sent.to_string().starts_with("LLM_REQUEST_SENT provider="));

    let id = &planned[0].record.id;
    let trace = git_papayu::trace::all(&store)
        .0
        .into_iter()
        .find(|t| t.plan_id.as_deref() == Some(id.as_str()))
        .expect("the plan's trace was written");
    assert_eq!(trace.goal.as_deref(), Some("write NOTES.md"));
    assert!(
        trace
            .transcript
            .events
            .iter()
            .any(|l| l.starts_with("PREVIEW_READY plan=")),
        "{:?}",
        trace.transcript.events
    );
    assert!(warnings.lock().expect("not poisoned").is_empty());
}

#[test]
fn a_session_without_records_still_plans() {
    let repo = TestRepo::with_files(&[("calc.py", CALC)]);
    let fake = FakeLlm::start(vec![fake_llm::openai_chat(&answer())]);
    let store = Store::open_at(repo.path()).expect("a store");
    let session = Session::open(&store, ask(&store), &env(&fake)).expect("a session");
    let answers = block_on(session.ask(&store, &NoRecords, "plan", &|_| {})).expect("a candidate");
    let planned = session::store_all(&store, &NoRecords, answers.candidates).expect("stored");
    assert_eq!(planned[0].record.goal, "write NOTES.md");
    assert!(
        git_papayu::trace::all(&store).0.is_empty(),
        "nothing is recorded without a recorder"
    );
}
