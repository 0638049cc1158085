//! Spinner lines on stderr (`⠋ label 3s message`), one per piece of work, redrawn in place
//! every [`TICK`] by a thread of their own. A line that says something for good is written
//! above them ([`Board::above`]); they leave the screen when cleared or dropped.
//!
//! Only drawn when the caller has decided progress is visible (stderr is a terminal): every
//! line is cut to the terminal's width, since a line that wraps would leave its tail behind
//! when the board moves the cursor back up over it.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// How often the lines are redrawn.
const TICK: Duration = Duration::from_millis(120);
/// The spinner's frames.
const FRAMES: [char; 10] = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/// Lines of work in progress, drawn on stderr.
pub struct Board {
    state: Arc<Mutex<State>>,
    stop: Arc<AtomicBool>,
}

struct State {
    rows: Vec<Row>,
    /// Lines on the screen now (the cursor is at the end of the last one).
    drawn: usize,
    frame: usize,
    /// Drawing starts once the board is this old.
    from: Instant,
    cleared: bool,
}

struct Row {
    key: String,
    prefix: String,
    message: String,
    started: Instant,
}

impl Board {
    /// A board drawn from `delay` on (so quick work shows nothing), redrawn until cleared.
    pub fn new(delay: Duration) -> Board {
        let board = Board {
            state: Arc::new(Mutex::new(State {
                rows: Vec::new(),
                drawn: 0,
                frame: 0,
                from: Instant::now() + delay,
                cleared: false,
            })),
            stop: Arc::new(AtomicBool::new(false)),
        };
        let (state, stop) = (Arc::clone(&board.state), Arc::clone(&board.stop));
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                std::thread::sleep(TICK);
                let mut state = lock(&state);
                if stop.load(Ordering::Relaxed) || state.cleared {
                    break;
                }
                state.frame += 1;
                state.redraw();
            }
        });
        board
    }

    /// Adds a line for the work `key` (timed from now), unless it has one.
    pub fn add(&self, key: &str, prefix: &str, message: &str) {
        let mut state = lock(&self.state);
        if state.rows.iter().any(|r| r.key == key) {
            return;
        }
        state.rows.push(Row {
            key: key.to_string(),
            prefix: prefix.to_string(),
            message: message.to_string(),
            started: Instant::now(),
        });
    }

    /// Whether `key` has a line.
    pub fn has(&self, key: &str) -> bool {
        lock(&self.state).rows.iter().any(|r| r.key == key)
    }

    /// What the work `key` is doing now.
    pub fn set_message(&self, key: &str, message: &str) {
        let mut state = lock(&self.state);
        if let Some(row) = state.rows.iter_mut().find(|r| r.key == key) {
            row.message = message.to_string();
        }
    }

    /// Runs `write` (which writes whole lines to stderr) with the board off the screen, then
    /// draws it again below what was written.
    pub fn above(&self, write: impl FnOnce()) {
        let mut state = lock(&self.state);
        state.erase();
        write();
        state.redraw();
    }

    /// Takes every line off the screen for good.
    pub fn clear(&self) {
        self.stop.store(true, Ordering::Relaxed);
        let mut state = lock(&self.state);
        state.erase();
        state.cleared = true;
    }
}

impl Drop for Board {
    fn drop(&mut self) {
        self.clear();
    }
}

fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    // A thread that panicked while drawing left nothing half-done that matters.
    state.lock().unwrap_or_else(PoisonError::into_inner)
}

impl State {
    /// Moves back over the lines drawn and blanks them.
    fn erase(&mut self) {
        if self.drawn == 0 {
            return;
        }
        let mut out = String::from("\r\x1b[2K");
        for _ in 1..self.drawn {
            out.push_str("\x1b[1A\x1b[2K");
        }
        self.drawn = 0;
        write_err(&out);
    }

    fn redraw(&mut self) {
        if self.cleared || self.rows.is_empty() || Instant::now() < self.from {
            return;
        }
        let width = terminal_width();
        let frame = FRAMES[self.frame % FRAMES.len()];
        let lines: Vec<String> = self
            .rows
            .iter()
            .map(|r| {
                let line = format!(
                    "{frame} {} {} {}",
                    r.prefix,
                    elapsed(r.started.elapsed()),
                    r.message
                );
                cut(line.trim_end(), width)
            })
            .collect();
        self.erase();
        write_err(&lines.join("\n"));
        self.drawn = lines.len();
    }
}

fn write_err(text: &str) {
    let mut err = std::io::stderr().lock();
    // A closed stderr only loses the spinner.
    let _ = err.write_all(text.as_bytes());
    let _ = err.flush();
}

/// Time taken as a spinner shows it: `7s`, `2m 5s`, `1h 3m`.
fn elapsed(d: Duration) -> String {
    let s = d.as_secs();
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m {}s", s / 60, s % 60),
        _ => format!("{}h {}m", s / 3600, s % 3600 / 60),
    }
}

/// `line` within `width` columns (one column a character: the labels are plain text).
fn cut(line: &str, width: usize) -> String {
    match line.char_indices().nth(width.saturating_sub(1)) {
        Some((at, _)) if line.chars().count() > width => format!("{}…", &line[..at]),
        _ => line.to_string(),
    }
}

/// The terminal's width in columns (stderr's), else 80.
fn terminal_width() -> usize {
    #[cfg(unix)]
    {
        let mut size = libc::winsize {
            ws_row: 0,
            ws_col: 0,
            ws_xpixel: 0,
            ws_ypixel: 0,
        };
        // SAFETY: TIOCGWINSZ only writes a `winsize` into the one passed, which lives across
        // the call; a descriptor 2 that is no terminal makes the call fail, which is handled.
        let ok = unsafe { libc::ioctl(2, libc::TIOCGWINSZ, &mut size) } == 0;
        if ok && size.ws_col > 0 {
            return usize::from(size.ws_col);
        }
    }
    80
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elapsed_time_reads_like_a_person_would_say_it() {
        assert_eq!(elapsed(Duration::from_millis(1500)), "1s");
        assert_eq!(elapsed(Duration::from_secs(125)), "2m 5s");
        assert_eq!(elapsed(Duration::from_secs(3 * 3600 + 120)), "3h 2m");
    }

    #[test]
    fn a_line_past_the_terminal_is_cut_to_its_width() {
        assert_eq!(cut("⠋ label 1s", 80), "⠋ label 1s");
        assert_eq!(cut("abcdef", 4), "abc…");
        assert_eq!(cut("abcd", 4), "abcd");
        assert_eq!(cut("ééééé", 3).chars().count(), 3);
    }
}
