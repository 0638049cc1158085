//! What a provider's error answer says: its `Retry-After`, its message, and whether it names a
//! sampling parameter, the context window or the structured-output parameter.

use std::time::Duration;

/// `Retry-After` as seconds or an HTTP date.
pub(super) fn parse_retry_after(text: &str) -> Option<Duration> {
    let text = text.trim();
    if let Ok(secs) = text.parse::<f64>() {
        return (secs >= 0.0).then(|| Duration::from_secs_f64(secs.min(3600.0)));
    }
    let when = httpdate_secs(text)?;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?
        .as_secs();
    Some(Duration::from_secs(when.saturating_sub(now)))
}

/// Seconds since the epoch of an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`).
pub(super) fn httpdate_secs(text: &str) -> Option<u64> {
    let parts: Vec<&str> = text.split_whitespace().collect();
    let [_, day, month, year, time, "GMT"] = parts.as_slice() else {
        return None;
    };
    let month = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]
    .iter()
    .position(|m| m == month)? as i64
        + 1;
    let (day, year): (i64, i64) = (day.parse().ok()?, year.parse().ok()?);
    let hms: Vec<i64> = time.split(':').filter_map(|p| p.parse().ok()).collect();
    let [h, m, s] = hms.as_slice() else {
        return None;
    };
    let days = crate::clock::days_from_civil(year, month, day);
    u64::try_from(days * 86_400 + h * 3600 + m * 60 + s).ok()
}

/// Does an error body say a sampling parameter is not supported?
pub(super) fn names_sampling(lower: &str) -> bool {
    [
        "temperature",
        "top_p",
        "frequency_penalty",
        "presence_penalty",
    ]
    .iter()
    .any(|p| lower.contains(p))
        && [
            "unsupported",
            "not supported",
            "does not support",
            "only the default",
        ]
        .iter()
        .any(|w| lower.contains(w))
}

/// Does an error body say the prompt is longer than the model's window?
pub(super) fn names_context_limit(lower: &str) -> bool {
    [
        "context_length_exceeded",
        "maximum context length",
        "exceed_context_size",
        "exceeds the available context size",
        "prompt is too long",
        "context window",
    ]
    .iter()
    .any(|w| lower.contains(w))
}

/// Does an error body name the structured-output parameter?
pub(super) fn names_format(lower: &str) -> bool {
    [
        "response_format",
        "json_schema",
        "text.format",
        "output_config",
        "tool_choice",
        "format",
        "tools",
    ]
    .iter()
    .any(|w| lower.contains(w))
}

/// The message an error body carries (`error.message`, `error`, `message`), else the body, on
/// one line.
pub(super) fn server_message(body: &str) -> String {
    let value: serde_json::Value = serde_json::from_str(body).unwrap_or_default();
    let text = value["error"]["message"]
        .as_str()
        .or(value["error"].as_str())
        .or(value["message"].as_str())
        .map(str::to_string)
        .unwrap_or_else(|| body.trim().to_string());
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
