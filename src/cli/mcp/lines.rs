//! The line filter in front of the MCP transport: every line a client sends is read here first,
//! within [`MAX_LINE_BYTES`], and a line that is no JSON-RPC message is answered here with a
//! JSON-RPC error. rmcp's transport drops a line it cannot parse without a word (as the other
//! SDKs do, against an error storm), and a client whose request was dropped waits for its answer
//! forever; an agent's malformed call must fail at once instead. Messages pass on unchanged, so
//! everything else (the handshake, notifications a client may send, the revision's own
//! checks) stays the SDK's.
//!
//! Standard output has two writers, the SDK's responses and this filter's errors: both go
//! through [`Out`], a whole line at a time, so the lines never interleave. This module must
//! never write anything but JSON-RPC lines to standard output.

use std::sync::Arc;

use serde_json::{Value, json};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::Mutex;

/// The longest request line read, in bytes: twice the largest answer papayu reads
/// ([`git_papayu::protocol::MAX_INPUT_BYTES`], 16 MiB), so that an answer the CLI would take
/// fits a `papayu_propose` call with its JSON escaping, and is refused (if it must be) by the
/// same `ERR_INPUT_TOO_LARGE` as on the command line. A longer line is never held in memory: it
/// is answered with an error and skipped to its end.
pub const MAX_LINE_BYTES: usize = 2 * git_papayu::protocol::MAX_INPUT_BYTES;

/// JSON-RPC's codes for a line that is not JSON, and for JSON that is not a request.
const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;

/// Standard output, shared by whole lines.
#[derive(Clone)]
pub struct Out(Arc<Mutex<tokio::io::Stdout>>);

impl Out {
    pub fn stdout() -> Out {
        Out(Arc::new(Mutex::new(tokio::io::stdout())))
    }

    /// Writes `line` and a newline, flushed, with nothing between them.
    async fn line(&self, line: &[u8]) -> std::io::Result<()> {
        let mut out = self.0.lock().await;
        out.write_all(line).await?;
        out.write_all(b"\n").await?;
        out.flush().await
    }
}

/// What to do with one line a client sent.
#[derive(Debug, PartialEq)]
pub enum Line {
    /// A JSON-RPC message: for the SDK.
    Message,
    /// Blank: nothing to do.
    Blank,
    /// Not a message: this error response is its answer.
    Refused(Value),
}

/// Judges one line (without its newline).
pub fn judge(line: &[u8]) -> Line {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    let Ok(text) = std::str::from_utf8(line) else {
        return Line::Refused(error(
            Value::Null,
            PARSE_ERROR,
            "Parse error: the line is not UTF-8; send each JSON-RPC message as one line of UTF-8 JSON",
        ));
    };
    if text.trim().is_empty() {
        return Line::Blank;
    }
    let value: Value = match serde_json::from_str(text) {
        Ok(value) => value,
        Err(e) => {
            return Line::Refused(error(
                Value::Null,
                PARSE_ERROR,
                &format!(
                    "Parse error: the line is not JSON ({e}); send each JSON-RPC message as one line of JSON"
                ),
            ));
        }
    };
    match not_a_message(&value) {
        None => Line::Message,
        Some((id, why)) => Line::Refused(error(
            id,
            INVALID_REQUEST,
            &format!("Invalid Request: {why}"),
        )),
    }
}

/// Why `value` is not a JSON-RPC 2.0 message (a request, a notification or a response), with
/// the id to answer with (`null` when none can be read).
fn not_a_message(value: &Value) -> Option<(Value, &'static str)> {
    let Some(object) = value.as_object() else {
        return Some((Value::Null, "a message is a JSON object"));
    };
    let id = match object.get("id") {
        None => Value::Null,
        Some(id @ (Value::String(_) | Value::Number(_))) => id.clone(),
        Some(_) => return Some((Value::Null, "`id` is a string or a number")),
    };
    if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Some((id, "`jsonrpc` must be \"2.0\""));
    }
    match object.get("method") {
        Some(Value::String(_)) => None,
        Some(_) => Some((id, "`method` is a string")),
        // A response to a request of the server's.
        None if !id.is_null()
            && (object.contains_key("result") || object.contains_key("error")) =>
        {
            None
        }
        None => Some((id, "a request names its `method`")),
    }
}

/// A JSON-RPC error response.
fn error(id: Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// The answer to a line longer than [`MAX_LINE_BYTES`].
fn oversized() -> Value {
    let mut e = error(
        Value::Null,
        INVALID_REQUEST,
        &format!(
            "Invalid Request: the line is longer than {MAX_LINE_BYTES} bytes (32 MiB), the most one message may be; it was skipped unread"
        ),
    );
    e["error"]["data"] = json!({"limit_bytes": MAX_LINE_BYTES});
    e
}

/// Reads the client's lines from `input` until it ends: messages go on to `server` (the SDK's
/// transport), every other line is answered on `out`. Returns when `input` ends or the server
/// stops reading.
pub async fn filter(
    input: impl AsyncBufRead + Unpin,
    mut server: impl AsyncWrite + Unpin,
    out: Out,
) -> std::io::Result<()> {
    let mut reader = Reader::new(input);
    while let Some(read) = reader.next().await? {
        let answer = match read {
            Read::Oversized => oversized(),
            Read::Line(line) => match judge(&line) {
                Line::Blank => continue,
                Line::Refused(answer) => answer,
                Line::Message => {
                    server.write_all(&line).await?;
                    server.write_all(b"\n").await?;
                    server.flush().await?;
                    continue;
                }
            },
        };
        out.line(answer.to_string().as_bytes()).await?;
    }
    Ok(())
}

/// Copies the SDK's output to `out` line by line.
pub async fn relay(from_server: impl AsyncBufRead + Unpin, out: Out) -> std::io::Result<()> {
    let mut lines = from_server.split(b'\n');
    while let Some(line) = lines.next_segment().await? {
        out.line(&line).await?;
    }
    Ok(())
}

/// One read of [`Reader`].
enum Read {
    Line(Vec<u8>),
    /// A line past [`MAX_LINE_BYTES`], reported once (its rest is skipped).
    Oversized,
}

/// Lines of at most [`MAX_LINE_BYTES`], read without ever holding more.
struct Reader<R> {
    input: R,
    line: Vec<u8>,
}

impl<R: AsyncBufRead + Unpin> Reader<R> {
    fn new(input: R) -> Self {
        Reader {
            input,
            line: Vec::new(),
        }
    }

    /// The next line (without its newline); a last line without one counts too.
    async fn next(&mut self) -> std::io::Result<Option<Read>> {
        loop {
            let available = self.input.fill_buf().await?;
            if available.is_empty() {
                let last = std::mem::take(&mut self.line);
                return Ok((!last.is_empty()).then_some(Read::Line(last)));
            }
            let newline = available.iter().position(|&b| b == b'\n');
            let end = newline.unwrap_or(available.len());
            if self.line.len() + end > MAX_LINE_BYTES {
                self.line = Vec::new();
                self.skip_rest().await?;
                return Ok(Some(Read::Oversized));
            }
            self.line.extend_from_slice(&available[..end]);
            self.input.consume(newline.map_or(end, |at| at + 1));
            if newline.is_some() {
                return Ok(Some(Read::Line(std::mem::take(&mut self.line))));
            }
        }
    }

    /// Skips to the end of the current line.
    async fn skip_rest(&mut self) -> std::io::Result<()> {
        loop {
            let available = self.input.fill_buf().await?;
            if available.is_empty() {
                return Ok(());
            }
            let newline = available.iter().position(|&b| b == b'\n');
            let take = newline.map_or(available.len(), |at| at + 1);
            self.input.consume(take);
            if newline.is_some() {
                return Ok(());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(line: &[u8]) -> Value {
        match judge(line) {
            Line::Refused(answer) => answer,
            other => panic!("{other:?} for {:?}", String::from_utf8_lossy(line)),
        }
    }

    #[test]
    fn lines_that_are_no_message_are_answered_with_their_id_when_it_can_be_read() {
        assert_eq!(refused(b"\xff\xfe{}")["error"]["code"], PARSE_ERROR);
        assert_eq!(refused(b"{\"jsonrpc\": ")["error"]["code"], PARSE_ERROR);
        assert_eq!(refused(b"[1, 2]")["id"], Value::Null);
        let no_method = refused(br#"{"jsonrpc": "2.0", "id": 7, "params": {}}"#);
        assert_eq!(
            (no_method["id"].clone(), no_method["error"]["code"].clone()),
            (json!(7), json!(INVALID_REQUEST))
        );
        assert_eq!(refused(br#"{"id": "a", "method": "x"}"#)["id"], "a");
        assert_eq!(
            refused(br#"{"jsonrpc": "2.0", "id": {}, "method": "x"}"#)["id"],
            Value::Null
        );
    }

    #[test]
    fn messages_and_blank_lines_pass() {
        for line in [
            &br#"{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}"#[..],
            br#"{"jsonrpc": "2.0", "method": "notifications/initialized"}"#,
            b"\xEF\xBB\xBF{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"ping\"}\r",
            br#"{"jsonrpc": "2.0", "id": 3, "result": {}}"#,
        ] {
            assert_eq!(judge(line), Line::Message);
        }
        assert_eq!(judge(b"  \r"), Line::Blank);
    }

    #[test]
    fn a_line_past_the_limit_is_skipped_without_being_held() {
        let mut input = vec![b'x'; MAX_LINE_BYTES + 10];
        input.extend_from_slice(b"\nnext\nlast");
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        runtime.block_on(async {
            let mut reader = Reader::new(tokio::io::BufReader::new(&input[..]));
            assert!(matches!(
                reader.next().await.unwrap(),
                Some(Read::Oversized)
            ));
            assert!(reader.line.capacity() <= MAX_LINE_BYTES + 1);
            for want in ["next", "last"] {
                match reader.next().await.unwrap() {
                    Some(Read::Line(line)) => assert_eq!(line, want.as_bytes()),
                    _ => panic!("{want}"),
                }
            }
            assert!(reader.next().await.unwrap().is_none());
        });
    }
}
