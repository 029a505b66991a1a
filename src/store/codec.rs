//! How domain values are stored, and the one place they are converted: a domain id is an
//! `ObjectId` in the database, an instant (`chrono::DateTime<Utc>`) a BSON date (millisecond
//! precision). The document shapes (`documents`) name these modules in `#[serde(with)]`, so
//! the documents other layers see hold domain types only; filters turn ids into ObjectIds
//! with [`ObjectIdExt::oid`] and instants into BSON dates with [`date`].

use bson::oid::ObjectId;
use bson::Bson;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::domain::ids::{
    CinemaId, EventId, HallId, HoldId, MarkId, MovieId, OrderId, ProductId, RedemptionId, RegionId,
    ResourceId, ReviewId, ShowtimeId, VoucherBatchId, WaitingEntryId, WebhookId,
};

/// A domain id kept as an ObjectId: its 12 bytes.
pub trait StoredId: Copy {
    fn from_bytes(bytes: [u8; 12]) -> Self;
    fn to_bytes(self) -> [u8; 12];
}

macro_rules! stored_ids {
    ($($id:ident),*) => {$(
        impl StoredId for $id {
            fn from_bytes(bytes: [u8; 12]) -> Self {
                $id(bytes)
            }
            fn to_bytes(self) -> [u8; 12] {
                self.0
            }
        }
    )*};
}

stored_ids!(
    CinemaId,
    EventId,
    HallId,
    HoldId,
    MarkId,
    MovieId,
    OrderId,
    ProductId,
    RedemptionId,
    RegionId,
    ResourceId,
    ReviewId,
    ShowtimeId,
    VoucherBatchId,
    WaitingEntryId,
    WebhookId
);

/// Converts a domain id into the ObjectId stored for it.
pub trait ObjectIdExt {
    fn oid(self) -> ObjectId;
}

impl<T: StoredId> ObjectIdExt for T {
    fn oid(self) -> ObjectId {
        ObjectId::from_bytes(self.to_bytes())
    }
}

/// The ObjectIds of domain ids (for `$in` and `$each`).
pub fn oids<T: StoredId>(ids: &[T]) -> Vec<ObjectId> {
    ids.iter().map(|id| id.oid()).collect()
}

/// The domain id of a stored ObjectId.
pub fn id_of<T: StoredId>(oid: ObjectId) -> T {
    T::from_bytes(oid.bytes())
}

/// A fresh id, unique across processes like every ObjectId: its first four bytes are the
/// second it was made (see [`created_at`]).
pub fn new_id<T: StoredId>() -> T {
    id_of(ObjectId::new())
}

/// When an id made by [`new_id`] was made (to the second).
pub fn created_at<T: StoredId>(id: T) -> DateTime<Utc> {
    id.oid().timestamp().to_chrono()
}

/// The gateway's clock at the precision the store keeps (milliseconds), so an answer given
/// from memory equals the same answer read back (a replayed idempotency key's).
pub fn now() -> DateTime<Utc> {
    bson::DateTime::now().to_chrono()
}

/// The BSON date of an instant (for filters and updates).
pub fn date(at: DateTime<Utc>) -> bson::DateTime {
    bson::DateTime::from_chrono(at)
}

/// The smallest ObjectId made in the second after `at`: every id made at or before `at` is
/// below it (an ObjectId starts with its creation time in whole seconds), so `$lt` on an id
/// field selects documents made by then, on the field's index.
pub fn ids_made_by(at: DateTime<Utc>) -> ObjectId {
    let seconds = at
        .timestamp()
        .saturating_add(1)
        .clamp(0, i64::from(u32::MAX));
    let mut bytes = [0; 12];
    bytes[..4].copy_from_slice(&(seconds as u32).to_be_bytes());
    ObjectId::from_bytes(bytes)
}

/// `#[serde(with = "codec::id")]`: a domain id as an ObjectId.
pub mod id {
    use super::*;

    pub fn serialize<T: StoredId, S: Serializer>(id: &T, serializer: S) -> Result<S::Ok, S::Error> {
        id.oid().serialize(serializer)
    }

    pub fn deserialize<'de, T: StoredId, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<T, D::Error> {
        ObjectId::deserialize(deserializer).map(id_of)
    }
}

/// `#[serde(with = "codec::optional_id")]`: an optional domain id as an ObjectId or nothing.
pub mod optional_id {
    use super::*;

    pub fn serialize<T: StoredId, S: Serializer>(
        id: &Option<T>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        id.map(ObjectIdExt::oid).serialize(serializer)
    }

    pub fn deserialize<'de, T: StoredId, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<T>, D::Error> {
        Ok(Option::<ObjectId>::deserialize(deserializer)?.map(id_of))
    }
}

/// `#[serde(with = "codec::ids")]`: domain ids as an array of ObjectIds.
pub mod ids {
    use super::*;

    pub fn serialize<T: StoredId, S: Serializer>(
        ids: &[T],
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(ids.iter().map(|id| id.oid()))
    }

    pub fn deserialize<'de, T: StoredId, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Vec<T>, D::Error> {
        Ok(Vec::<ObjectId>::deserialize(deserializer)?
            .into_iter()
            .map(id_of)
            .collect())
    }
}

/// A BSON date, read as raw BSON: `bson::DateTime`'s own `Deserialize` goes through extended
/// JSON (`{"$date": {"$numberLong": "…"}}`, a string formatted and parsed, a map built), which
/// was most of the cost of reading a showtime's two dates.
fn date_of<'de, D: Deserializer<'de>>(deserializer: D) -> Result<DateTime<Utc>, D::Error> {
    match bson::RawBson::deserialize(deserializer)? {
        bson::RawBson::DateTime(at) => Ok(at.to_chrono()),
        other => Err(serde::de::Error::custom(format!(
            "expected a date, found {:?}",
            other.element_type()
        ))),
    }
}

/// `#[serde(with = "codec::time")]`: an instant as a BSON date.
pub mod time {
    use super::*;

    pub fn serialize<S: Serializer>(at: &DateTime<Utc>, serializer: S) -> Result<S::Ok, S::Error> {
        date(*at).serialize(serializer)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<DateTime<Utc>, D::Error> {
        date_of(deserializer)
    }
}

/// `#[serde(with = "codec::optional_time")]`: an optional instant as a BSON date or nothing.
pub mod optional_time {
    use super::*;

    pub fn serialize<S: Serializer>(
        at: &Option<DateTime<Utc>>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        at.map(date).serialize(serializer)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<DateTime<Utc>>, D::Error> {
        /// A present date, read as [`date_of`] reads it.
        struct Present(DateTime<Utc>);
        impl<'de> Deserialize<'de> for Present {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                date_of(deserializer).map(Present)
            }
        }
        Ok(Option::<Present>::deserialize(deserializer)?.map(|Present(at)| at))
    }
}

/// A count as the server wrote it (an aggregation's `$sum`, an explain's figures): an int32,
/// an int64 or a double.
pub(crate) fn count(value: &Bson) -> Option<i64> {
    match value {
        Bson::Int32(n) => Some(i64::from(*n)),
        Bson::Int64(n) => Some(*n),
        Bson::Double(n) => Some(*n as i64),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_made_by_an_instant_are_below_its_bound_and_later_ones_are_not() {
        let made = ObjectId::new();
        let at = made.timestamp().to_chrono();
        assert!(made < ids_made_by(at));
        assert!(made > ids_made_by(at - chrono::TimeDelta::seconds(1)));
        assert!(ObjectId::new() < ids_made_by(DateTime::<Utc>::MAX_UTC));
        assert_eq!(
            ids_made_by(DateTime::<Utc>::MIN_UTC),
            ObjectId::from_bytes([0; 12])
        );
    }

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Sample {
        #[serde(with = "id")]
        movie: MovieId,
        #[serde(default, with = "optional_id")]
        order: Option<OrderId>,
        #[serde(with = "ids")]
        holds: Vec<HoldId>,
        #[serde(with = "time")]
        at: DateTime<Utc>,
        #[serde(default, with = "optional_time")]
        until: Option<DateTime<Utc>>,
    }

    #[test]
    fn domain_values_are_stored_as_object_ids_and_dates() {
        let at = DateTime::from_timestamp_millis(1_790_000_000_123).unwrap();
        let sample = Sample {
            movie: new_id(),
            order: Some(new_id()),
            holds: vec![new_id(), new_id()],
            at,
            until: None,
        };
        let stored = bson::to_document(&sample).unwrap();
        assert_eq!(stored.get_object_id("movie").unwrap(), sample.movie.oid());
        assert_eq!(
            stored.get_object_id("order").unwrap(),
            sample.order.unwrap().oid()
        );
        assert_eq!(stored.get_datetime("at").unwrap(), &date(at));
        assert_eq!(bson::from_document::<Sample>(stored).unwrap(), sample);
    }

    #[test]
    fn dates_read_the_same_from_raw_bytes_and_from_a_document() {
        let at = DateTime::from_timestamp_millis(1_790_000_000_123).unwrap();
        let until = DateTime::from_timestamp_millis(-86_400_001).unwrap();
        let sample = Sample {
            movie: new_id(),
            order: None,
            holds: vec![],
            at,
            until: Some(until),
        };
        // The driver reads replies as raw bytes; `from_document` reads a `Document`.
        let bytes = bson::to_vec(&sample).unwrap();
        assert_eq!(bson::from_slice::<Sample>(&bytes).unwrap(), sample);
        let document = bson::to_document(&sample).unwrap();
        assert_eq!(
            bson::from_document::<Sample>(document.clone()).unwrap(),
            sample
        );
        // Anything but a date is refused, whichever way it is read.
        let mut wrong = document;
        wrong.insert("at", 1_790_000_000_123_i64);
        assert!(bson::from_document::<Sample>(wrong.clone()).is_err());
        assert!(bson::from_slice::<Sample>(&bson::to_vec(&wrong).unwrap()).is_err());
    }

    #[test]
    fn a_new_id_says_when_it_was_made() {
        let before = Utc::now().timestamp();
        let made = created_at(new_id::<HoldId>()).timestamp();
        assert!((before..=before + 1).contains(&made), "{before} {made}");
    }
}
