//! What time it is, for everything papayu stamps: plan records, events, operations, check
//! requests, claims and their leases, worker results, traces, and the "N minutes ago" of what
//! it shows.
//!
//! `PAPAYU_TIMESTAMP` fixes the time (as jj's `JJ_TIMESTAMP` does): milliseconds since the epoch,
//! or an RFC 3339 time (`2026-01-01T12:00:00Z`, `…T12:00:00.250+02:00`). Tests set it to give
//! two commands different times, or to let a lease expire, instead of sleeping. Unset, the
//! system clock is read. The variable is declared in [`crate::settings::SETTINGS`], whose check
//! refuses a bad value before a command does anything; this module reads it itself because
//! every layer stamps time, and never sees a bad value from a command (should it, the system
//! clock is read).
//!
//! Durations (timeouts, how long a request took) are measured with `Instant`, never with this
//! clock: a fixed time must not stop a timeout.
//!
//! It is also papayu's one reader of RFC 3339 times ([`rfc3339_millis`]) and of UTC offsets,
//! and its calendar ([`days_from_civil`]): the store dates commits from `GIT_*_DATE` with them,
//! and every other date papayu reads is counted in days with the same calendar.

use std::sync::OnceLock;

/// The variable that fixes the time.
pub const VARIABLE: &str = "PAPAYU_TIMESTAMP";

/// Now, in milliseconds since the epoch: `PAPAYU_TIMESTAMP` when set, else the system clock.
pub fn now_millis() -> i64 {
    static FIXED: OnceLock<Option<i64>> = OnceLock::new();
    let fixed = FIXED.get_or_init(|| std::env::var(VARIABLE).ok().as_deref().and_then(parse));
    match fixed {
        Some(at) => *at,
        None => system_millis(),
    }
}

fn system_millis() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// A time `PAPAYU_TIMESTAMP` may say, in milliseconds since the epoch: a whole number of
/// milliseconds (0 or more), or an RFC 3339 time from year 1970 to 9999. `None` for anything
/// else.
pub fn parse(text: &str) -> Option<i64> {
    let text = text.trim();
    if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
        return text.parse().ok().filter(|&ms| ms <= END_OF_9999_MS);
    }
    rfc3339_millis(text)
        .map(|(ms, _)| ms)
        .filter(|ms| (0..=END_OF_9999_MS).contains(ms))
}

const END_OF_9999_MS: i64 = 253_402_300_799_999;

/// An RFC 3339 time `YYYY-MM-DDTHH:MM:SS[.fff](Z|±hh:mm)` (`t` or a space for `T`, `z` for
/// `Z`) as milliseconds since the epoch and its offset in minutes. Digits of a second past the
/// third are dropped.
pub fn rfc3339_millis(text: &str) -> Option<(i64, i32)> {
    let (date, rest) = text.split_once(['T', 't', ' '])?;
    let mut d = date.split('-').map(number);
    let (year, month, day) = (d.next()??, d.next()??, d.next()??);
    if d.next().is_some() || date.len() != 10 {
        return None;
    }
    let (clock, offset) = match rest.strip_suffix(['Z', 'z']) {
        Some(clock) => (clock, 0),
        None => {
            let at = rest.rfind(['+', '-'])?;
            (&rest[..at], offset_minutes(&rest[at..])?)
        }
    };
    let (clock, fraction) = match clock.split_once('.') {
        Some((clock, fraction)) => (clock, Some(fraction)),
        None => (clock, None),
    };
    let mut c = clock.split(':').map(number);
    let (hour, minute, second) = (c.next()??, c.next()??, c.next()??);
    if c.next().is_some() || clock.len() != 8 {
        return None;
    }
    let millis = match fraction {
        None => 0,
        Some(f) if !f.is_empty() && f.bytes().all(|b| b.is_ascii_digit()) => {
            format!("{:0<3}", &f[..f.len().min(3)])
                .parse::<i64>()
                .ok()?
        }
        Some(_) => return None,
    };
    let valid = (1..=12).contains(&month)
        && (1..=31).contains(&day)
        && (0..24).contains(&hour)
        && (0..60).contains(&minute)
        && (0..=60).contains(&second);
    if !valid {
        return None;
    }
    let secs = days_from_civil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second
        - i64::from(offset) * 60;
    Some((secs * 1000 + millis, offset))
}

fn number(text: &str) -> Option<i64> {
    match !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
        true => text.parse().ok(),
        false => None,
    }
}

/// `+hh:mm`, `-hhmm` as minutes east of UTC; at most ±23:59.
pub fn offset_minutes(text: &str) -> Option<i32> {
    let (sign, digits) = match text.as_bytes().first()? {
        b'+' => (1, &text[1..]),
        b'-' => (-1, &text[1..]),
        _ => return None,
    };
    let digits: String = digits.chars().filter(|c| *c != ':').collect();
    if digits.len() != 4 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let hours: i32 = digits.get(..2)?.parse().ok()?;
    let minutes: i32 = digits.get(2..)?.parse().ok()?;
    (hours < 24 && minutes < 60).then_some(sign * (hours * 60 + minutes))
}

/// Days since 1970-01-01 of a proleptic Gregorian date.
pub fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fixed_time_is_epoch_milliseconds_or_rfc_3339() {
        assert_eq!(parse("0"), Some(0));
        assert_eq!(parse(" 1767225600000 "), Some(1_767_225_600_000));
        assert_eq!(parse("2026-01-01T00:00:00Z"), Some(1_767_225_600_000));
        assert_eq!(parse("2026-01-01t00:00:00z"), Some(1_767_225_600_000));
        assert_eq!(
            parse("2026-01-01T02:00:00.25+02:00"),
            Some(1_767_225_600_250)
        );
        assert_eq!(
            parse("2025-12-31T23:00:00.123456-01:00"),
            Some(1_767_225_600_123)
        );
        assert_eq!(parse("1970-01-01T00:00:00Z"), Some(0));
        for bad in [
            "",
            "now",
            "-5",
            "1.5",
            "1e3",
            "2026-01-01",
            "2026-01-01T00:00:00",
            "2026-13-01T00:00:00Z",
            "2026-01-01T24:00:00Z",
            "2026-01-01T00:00Z",
            "2026-01-01T00:00:00.Z",
            "2026-01-01T00:00:00+2",
            "1969-12-31T23:59:59Z",
            "99999999999999999999",
        ] {
            assert_eq!(parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn an_rfc_3339_time_keeps_its_offset() {
        assert_eq!(
            rfc3339_millis("2026-01-01T02:00:00+02:00"),
            Some((1_767_225_600_000, 120))
        );
        assert_eq!(
            rfc3339_millis("2025-12-31T21:30:00-02:30"),
            Some((1_767_225_600_000, -150))
        );
        assert_eq!(offset_minutes("-0230"), Some(-150));
        assert_eq!(offset_minutes("++100"), None);
        assert_eq!(offset_minutes("+24:00"), None);
    }
}
