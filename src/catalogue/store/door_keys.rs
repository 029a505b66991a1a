//! `operators`, the door staff keys' records: a door key is an operator record with a `door`
//! (its cinema and name), made and revoked by the cinema's operators. The `operators` feature
//! writes the other records of the collection; no record is written by both.

use bson::doc;

use crate::domain::ids::CinemaId;
use crate::error::ApiError;
use crate::store::codec::ObjectIdExt;
use crate::store::command_metrics::Call;
use crate::store::documents::{DoorDoc, OperatorDoc, SCHEMA_VERSION};
use crate::store::{names, Store};

impl Store {
    /// Stores door staff key `code` (its hash only) for `door`. Door keys' codes are fresh
    /// random ids: a clash is INTERNAL.
    #[tracing::instrument(skip(self, key_hash))]
    pub async fn create_door_key(
        &self,
        code: &str,
        key_hash: String,
        door: DoorDoc,
    ) -> Result<OperatorDoc, ApiError> {
        let operator = OperatorDoc {
            code: code.to_owned(),
            schema_version: SCHEMA_VERSION,
            name: door.name.clone(),
            api_key_hash: key_hash,
            all_cinemas: false,
            cinema_ids: Vec::new(),
            door: Some(door),
        };
        self.bounded(
            Call::new(names::OPERATORS, "insert"),
            self.collection::<OperatorDoc>(names::OPERATORS)
                .insert_one(&operator),
        )
        .await?;
        Ok(operator)
    }

    /// The door staff key `code`, if there is one.
    #[tracing::instrument(skip(self))]
    pub async fn door_key(&self, code: &str) -> Result<Option<OperatorDoc>, ApiError> {
        self.bounded(
            Call::new(names::OPERATORS, "find"),
            self.collection::<OperatorDoc>(names::OPERATORS)
                .find_one(doc! { "_id": code, "door": { "$exists": true } }),
        )
        .await
    }

    /// The door staff keys of `cinema`, by code (at most `limit`; index `door_cinema`).
    #[tracing::instrument(skip(self))]
    pub async fn door_keys_of(
        &self,
        cinema: CinemaId,
        limit: i64,
    ) -> Result<Vec<OperatorDoc>, ApiError> {
        use futures::TryStreamExt;
        self.bounded(Call::new(names::OPERATORS, "find"), async {
            self.collection::<OperatorDoc>(names::OPERATORS)
                .find(doc! { "door.cinemaId": cinema.oid() })
                .sort(doc! { "door.cinemaId": 1, "_id": 1 })
                .limit(limit)
                .await?
                .try_collect()
                .await
        })
        .await
    }

    /// Deletes door staff key `code` of cinema `cinema`: false when there is no such key.
    #[tracing::instrument(skip(self))]
    pub async fn revoke_door_key(&self, code: &str, cinema: CinemaId) -> Result<bool, ApiError> {
        let deleted = self
            .bounded(
                Call::new(names::OPERATORS, "delete"),
                self.collection::<OperatorDoc>(names::OPERATORS)
                    .delete_one(doc! { "_id": code, "door.cinemaId": cinema.oid() }),
            )
            .await?;
        Ok(deleted.deleted_count == 1)
    }
}
