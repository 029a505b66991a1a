//! `operators`: who may write the catalogue, and which cinemas (door keys' records are the
//! catalogue's: `catalogue::store::door_keys`).

use bson::doc;

use crate::domain::ids::CinemaId;
use crate::error::ApiError;
use crate::operators::rules::OperatorScope;
use crate::store::codec::ObjectIdExt;
use crate::store::command_metrics::Call;
use crate::store::documents::{OperatorDoc, SCHEMA_VERSION};
use crate::store::is_duplicate_key;
use crate::store::{names, Store};

impl Store {
    /// The operator whose API key hashes to `key_hash`, if any (unique index `api_key`).
    #[tracing::instrument(skip_all)]
    pub async fn operator_by_key_hash(
        &self,
        key_hash: &str,
    ) -> Result<Option<OperatorDoc>, ApiError> {
        self.bounded(
            Call::new(names::OPERATORS, "find"),
            self.collection::<OperatorDoc>(names::OPERATORS)
                .find_one(doc! { "apiKeyHash": key_hash }),
        )
        .await
    }

    /// An operator by code.
    #[tracing::instrument(skip(self))]
    pub async fn operator_by_code(&self, code: &str) -> Result<Option<OperatorDoc>, ApiError> {
        self.bounded(
            Call::new(names::OPERATORS, "find"),
            self.collection::<OperatorDoc>(names::OPERATORS)
                .find_one(doc! { "_id": code }),
        )
        .await
    }

    /// Creates an operator; BAD_USER_INPUT when the code is taken.
    #[tracing::instrument(skip(self, key_hash))]
    pub async fn create_operator(
        &self,
        code: &str,
        name: &str,
        key_hash: String,
        scope: &OperatorScope,
    ) -> Result<OperatorDoc, ApiError> {
        let operator = OperatorDoc {
            code: code.to_owned(),
            schema_version: SCHEMA_VERSION,
            name: name.to_owned(),
            api_key_hash: key_hash,
            all_cinemas: matches!(scope, OperatorScope::All),
            cinema_ids: match scope {
                OperatorScope::All => Vec::new(),
                OperatorScope::Cinemas(ids) => ids.clone(),
            },
            door: None,
        };
        match self
            .bounded_raw(
                Call::new(names::OPERATORS, "insert"),
                self.collection::<OperatorDoc>(names::OPERATORS)
                    .insert_one(&operator),
            )
            .await?
        {
            Ok(_) => Ok(operator),
            Err(error) if is_duplicate_key(&error) => Err(ApiError::bad_input(format!(
                "an operator with code `{code}` exists already"
            ))),
            Err(error) => Err(error.into()),
        }
    }

    /// Whether operator `code` may write `cinema`: read fresh on every write, so a change of
    /// scope counts at once.
    #[tracing::instrument(skip(self))]
    pub async fn operator_may_write(&self, code: &str, cinema: CinemaId) -> Result<bool, ApiError> {
        let filter = doc! {
            "_id": code,
            "$or": [ { "allCinemas": true }, { "cinemaIds": cinema.oid() } ],
        };
        let found = self
            .bounded(
                Call::new(names::OPERATORS, "find"),
                self.collection::<bson::Document>(names::OPERATORS)
                    .find_one(filter)
                    .projection(doc! { "_id": 1 }),
            )
            .await?;
        Ok(found.is_some())
    }

    /// Whether operator `code` is the platform's (every cinema, the audit log).
    #[tracing::instrument(skip(self))]
    pub async fn operator_is_platform(&self, code: &str) -> Result<bool, ApiError> {
        Ok(self
            .operator_by_code(code)
            .await?
            .is_some_and(|operator| operator.all_cinemas))
    }

    /// Adds `cinema` to operator `code`'s scope (a cinema it creates). Idempotent.
    #[tracing::instrument(skip(self))]
    pub async fn add_to_operator_scope(
        &self,
        code: &str,
        cinema: CinemaId,
    ) -> Result<(), ApiError> {
        self.bounded(
            Call::new(names::OPERATORS, "update"),
            self.collection::<OperatorDoc>(names::OPERATORS).update_one(
                doc! { "_id": code, "allCinemas": false },
                doc! { "$addToSet": { "cinemaIds": cinema.oid() } },
            ),
        )
        .await?;
        Ok(())
    }
}
