//! `Boxed<T>`: a member of a merged root whose field futures are boxed.
//!
//! A merged root (`Mutation`, `Query`) resolves a field by trying each member in turn, and
//! its future holds every member's field future inline: in a debug build the poll of that
//! future took a 600 KB stack frame for `Mutation`, a third of a test thread's stack, so a
//! deep resolver (a showtime's cancellation) overflowed it. Boxed, each member is a pointer
//! there; the cost is one allocation per root field of a request.

use std::borrow::Cow;
use std::future::Future;

use async_graphql::parser::types::Field;
use async_graphql::registry::Registry;
use async_graphql::{
    ContainerType, Context, ContextSelectionSet, ObjectType, OutputType, Positioned, ServerResult,
    Value,
};

/// `T`, with its field futures boxed; the schema sees `T` itself.
#[derive(Default)]
pub struct Boxed<T>(pub T);

impl<T: ContainerType> ContainerType for Boxed<T> {
    fn resolve_field(
        &self,
        ctx: &Context<'_>,
    ) -> impl Future<Output = ServerResult<Option<Value>>> + Send {
        Box::pin(self.0.resolve_field(ctx))
    }

    fn find_entity(
        &self,
        ctx: &Context<'_>,
        params: &Value,
    ) -> impl Future<Output = ServerResult<Option<Value>>> + Send {
        Box::pin(self.0.find_entity(ctx, params))
    }
}

impl<T: OutputType> OutputType for Boxed<T> {
    fn type_name() -> Cow<'static, str> {
        T::type_name()
    }

    fn create_type_info(registry: &mut Registry) -> String {
        T::create_type_info(registry)
    }

    fn resolve(
        &self,
        ctx: &ContextSelectionSet<'_>,
        field: &Positioned<Field>,
    ) -> impl Future<Output = ServerResult<Value>> + Send {
        Box::pin(self.0.resolve(ctx, field))
    }
}

impl<T: ObjectType> ObjectType for Boxed<T> {}
