//! The longest list in a JSON text, found in one pass that builds nothing: a body or a
//! WebSocket message holding a list longer than any argument takes is refused before it is
//! parsed into a request (100,000 small objects cost the gateway about 20 MB and most of a
//! second of CPU to build, only to be refused by `graphql::MAX_VARIABLE_LIST` after).

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// The length of the longest list anywhere in `text` (0 for none); an error when it is not
/// JSON (the parse that follows says so in the request's terms).
pub fn longest_list(text: &[u8]) -> serde_json::Result<usize> {
    let mut deserializer = serde_json::Deserializer::from_slice(text);
    let longest = Longest.deserialize(&mut deserializer)?;
    deserializer.end()?;
    Ok(longest)
}

/// Visits any value, giving the longest list in it. serde_json's recursion limit (128) bounds
/// how deep this goes.
struct Longest;

impl<'de> DeserializeSeed<'de> for Longest {
    type Value = usize;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<usize, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Longest {
    type Value = usize;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<usize, A::Error> {
        let (mut items, mut longest) = (0, 0);
        while let Some(inner) = seq.next_element_seed(Longest)? {
            items += 1;
            longest = longest.max(inner);
        }
        Ok(longest.max(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<usize, A::Error> {
        let mut longest = 0;
        while map.next_key::<IgnoredAny>()?.is_some() {
            longest = longest.max(map.next_value_seed(Longest)?);
        }
        Ok(longest)
    }

    fn visit_bool<E>(self, _: bool) -> Result<usize, E> {
        Ok(0)
    }

    fn visit_i64<E>(self, _: i64) -> Result<usize, E> {
        Ok(0)
    }

    fn visit_u64<E>(self, _: u64) -> Result<usize, E> {
        Ok(0)
    }

    fn visit_f64<E>(self, _: f64) -> Result<usize, E> {
        Ok(0)
    }

    fn visit_str<E>(self, _: &str) -> Result<usize, E> {
        Ok(0)
    }

    fn visit_unit<E>(self) -> Result<usize, E> {
        Ok(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_longest_list_at_any_depth() {
        assert_eq!(longest_list(br#""A1""#).unwrap(), 0);
        assert_eq!(
            longest_list(br#"{"a": [1, 2, 3], "b": {"c": [[1], [1, 2, 3, 4]]}}"#).unwrap(),
            4
        );
        assert_eq!(longest_list(b"[{}, {}]").unwrap(), 2);
        let long = format!("{{\"v\": [{}]}}", vec!["{\"x\": 1}"; 5_000].join(","));
        assert_eq!(longest_list(long.as_bytes()).unwrap(), 5_000);
        assert!(longest_list(b"[1, 2").is_err());
        assert!(longest_list(b"[] x").is_err());
    }
}
