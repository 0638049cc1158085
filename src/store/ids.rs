//! What papayu's names look like: plan ids, object ids, proposal branch names, and the short
//! form of an id shown to users. Shared by the records, the proposals and the operation log, so
//! none of them has to reach into another for it.

/// Whether `text` is a plan id (or a line hash): 40 lowercase hex digits.
pub fn is_plan_id(text: &str) -> bool {
    text.len() == 40 && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// Whether `text` is a full object id: 40 (SHA-1) or 64 (SHA-256) lowercase hex digits.
pub fn is_object_id(text: &str) -> bool {
    matches!(text.len(), 40 | 64) && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// Whether `name` is a branch name papayu may own: `papayu/…`, valid as a git ref.
pub fn is_proposal_branch(name: &str) -> bool {
    name.starts_with("papayu/") && git2::Reference::is_valid_name(&format!("refs/heads/{name}"))
}

/// How many hex digits of an object or plan id are shown to users.
pub const SHORT: usize = 10;

/// The first [`SHORT`] characters of an id (an object id, a plan id, a digest), as shown to users.
pub fn short(id: impl std::fmt::Display) -> String {
    id.to_string().chars().take(SHORT).collect()
}

/// Serde for an object id held as [`git2::Oid`] and written as git writes it (40 lowercase hex
/// digits): `#[serde(with = "oid_hex")]`. Anything else is refused when read, so a malformed
/// note line is never taken for a well-formed one.
pub mod oid_hex {
    use git2::Oid;
    use serde::{Deserialize, Deserializer, Serializer, de::Error};

    pub fn serialize<S: Serializer>(id: &Oid, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(id)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Oid, D::Error> {
        let text = std::borrow::Cow::<str>::deserialize(d)?;
        parse(&text).ok_or_else(|| D::Error::custom(format!("not an object id: {text}")))
    }

    /// `text` as an object id, when it is a full one.
    pub fn parse(text: &str) -> Option<Oid> {
        (text.len() == 40 && super::is_object_id(text))
            .then(|| Oid::from_str(text).ok())
            .flatten()
    }

    /// The same for an optional id (`#[serde(with = "oid_hex::option")]`).
    pub mod option {
        use git2::Oid;
        use serde::{Deserialize, Deserializer, Serializer, de::Error};

        pub fn serialize<S: Serializer>(id: &Option<Oid>, s: S) -> Result<S::Ok, S::Error> {
            match id {
                Some(id) => s.collect_str(id),
                None => s.serialize_none(),
            }
        }

        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Oid>, D::Error> {
            match Option::<std::borrow::Cow<'de, str>>::deserialize(d)? {
                None => Ok(None),
                Some(text) => super::parse(&text)
                    .map(Some)
                    .ok_or_else(|| D::Error::custom(format!("not an object id: {text}"))),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Serialize, serde::Deserialize)]
    struct Holder {
        #[serde(with = "oid_hex")]
        id: git2::Oid,
        #[serde(
            default,
            with = "oid_hex::option",
            skip_serializing_if = "Option::is_none"
        )]
        maybe: Option<git2::Oid>,
    }

    #[test]
    fn object_ids_are_written_as_git_does_and_read_only_whole() {
        let hex = "0123456789abcdef0123456789abcdef01234567";
        let held: Holder = serde_json::from_str(&format!(r#"{{"id":"{hex}"}}"#)).unwrap();
        assert_eq!(held.id.to_string(), hex);
        assert_eq!(held.maybe, None);
        assert_eq!(
            serde_json::to_string(&held).unwrap(),
            format!(r#"{{"id":"{hex}"}}"#)
        );
        // git2 would pad a short id with zeros; a record must name an object whole.
        for bad in [
            "abc",
            &hex.to_uppercase(),
            &format!("{hex}00"),
            &"a".repeat(64),
        ] {
            let line = format!(r#"{{"id":"{bad}"}}"#);
            assert!(serde_json::from_str::<Holder>(&line).is_err(), "{bad}");
            let line = format!(r#"{{"id":"{hex}","maybe":"{bad}"}}"#);
            assert!(serde_json::from_str::<Holder>(&line).is_err(), "{bad}");
        }
    }
}
