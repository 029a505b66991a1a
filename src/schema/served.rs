//! The schema a gateway serves, plain or federated, and what the HTTP layer asks of a request
//! before it runs: its operation, as the shape limits checked it.

use async_graphql::parser::types::OperationDefinition;
use async_graphql::{BatchRequest, BatchResponse, Response};
use futures::stream::BoxStream;

use super::execution::{checked, execute_batch, execute_stream, limits_of};
use super::{schema, schema_of, AppSchema, FederatedSchema, QueryRoot, RootSchema};
use crate::graphql::QueryLimits;

/// The schema a gateway serves: one or the other, chosen at start-up.
#[derive(Clone)]
pub enum ServedSchema {
    Plain(AppSchema),
    Federated(FederatedSchema),
}

impl ServedSchema {
    /// The schema of `limits`, federated or not.
    pub fn new(limits: QueryLimits, federation: bool) -> Self {
        if federation {
            ServedSchema::Federated(schema_of(limits))
        } else {
            ServedSchema::Plain(schema(limits))
        }
    }

    /// [`execute_batch`] on the schema served.
    pub async fn execute_batch(&self, batch: BatchRequest) -> BatchResponse {
        match self {
            ServedSchema::Plain(schema) => execute_batch(schema, batch).await,
            ServedSchema::Federated(schema) => execute_batch(schema, batch).await,
        }
    }

    /// [`execute_stream`] on the schema served.
    pub fn execute_stream(&self, request: async_graphql::Request) -> BoxStream<'static, Response> {
        match self {
            ServedSchema::Plain(schema) => execute_stream(schema, request),
            ServedSchema::Federated(schema) => execute_stream(schema, request),
        }
    }

    /// [`shareable`] on the schema served.
    pub fn shareable(&self, request: &mut async_graphql::Request) -> bool {
        match self {
            ServedSchema::Plain(schema) => shareable(schema, request),
            ServedSchema::Federated(schema) => shareable(schema, request),
        }
    }

    /// Whether `request` runs a subscription, from its document as the shape limits checked
    /// it (and cached; the execution then parses nothing again). False when the limits refuse
    /// it or it names no operation of its document: the execution says what is wrong.
    pub fn is_subscription(&self, request: &mut async_graphql::Request) -> bool {
        use async_graphql::parser::types::OperationType;
        let subscription = |operation: &OperationDefinition, _: &async_graphql::Variables| {
            (operation.ty == OperationType::Subscription).then_some(())
        };
        self.on_operation(request, subscription).is_some()
    }

    /// `test` of the operation `request` runs and its variables, from its document as the
    /// shape limits checked it (and cached); None when the limits refuse it or it names no
    /// operation of its document.
    pub fn on_operation<T>(
        &self,
        request: &mut async_graphql::Request,
        test: impl FnOnce(&OperationDefinition, &async_graphql::Variables) -> Option<T>,
    ) -> Option<T> {
        match self {
            ServedSchema::Plain(schema) => with_operation(schema, request, test),
            ServedSchema::Federated(schema) => with_operation(schema, request, test),
        }
    }
}

/// `test` of the operation `request` runs, from its checked document; None when the shape
/// limits refuse it or it names no operation of the document.
fn with_operation<Q: QueryRoot, T>(
    schema: &RootSchema<Q>,
    request: &mut async_graphql::Request,
    test: impl FnOnce(&OperationDefinition, &async_graphql::Variables) -> Option<T>,
) -> Option<T> {
    use async_graphql::parser::types::DocumentOperations;
    let limits = limits_of(schema);
    let checked = checked(schema, request, &limits).ok()?;
    let operation = match (&checked.document.operations, &request.operation_name) {
        (DocumentOperations::Single(operation), _) => operation,
        (DocumentOperations::Multiple(operations), Some(name)) => operations.get(name.as_str())?,
        (DocumentOperations::Multiple(_), None) => return None,
    };
    test(&operation.node, &request.variables)
}

/// Whether `request` is a subscription to `seatMapChanged` alone (one root field, without
/// directives): the one kind of operation subscribers asking the same thing can share, since
/// a subscriber joining late can start at its latest whole map. False as well for a request
/// the shape limits refuse (it runs alone, to be refused with its code).
fn shareable<Q: QueryRoot>(schema: &RootSchema<Q>, request: &mut async_graphql::Request) -> bool {
    use async_graphql::parser::types::{OperationType, Selection};
    with_operation(schema, request, |operation, _| {
        let [selection] = operation.selection_set.node.items.as_slice() else {
            return None;
        };
        let shareable = operation.ty == OperationType::Subscription
            && operation.directives.is_empty()
            && matches!(&selection.node, Selection::Field(field)
                if field.node.name.node == "seatMapChanged" && field.node.directives.is_empty());
        shareable.then_some(())
    })
    .is_some()
}
