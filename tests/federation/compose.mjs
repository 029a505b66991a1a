// node compose.mjs BOXOFFICE_URL REWARDS QUERIES
//
// Composes Boxoffice (served with --federation at BOXOFFICE_URL, e.g. http://127.0.0.1:PORT/graphql)
// with a loyalty subgraph written here, under Apollo Gateway, then runs QUERIES through the
// gateway and prints their answers as JSON.
//
// The loyalty subgraph keeps points per order: REWARDS is a JSON list of {order, points}. It
// extends Boxoffice's `Order` entity with `points`, and lists `rewards`, each naming an `Order`
// that Boxoffice resolves through `_entities`. QUERIES is a JSON list of
// {query, authorization?}; the gateway passes `Authorization` on to both subgraphs.
import { ApolloGateway, IntrospectAndCompose, RemoteGraphQLDataSource } from '@apollo/gateway';
import { ApolloServer } from '@apollo/server';
import { startStandaloneServer } from '@apollo/server/standalone';
import { buildSubgraphSchema } from '@apollo/subgraph';
import gql from 'graphql-tag';

const [boxoffice, rewardsJson, queriesJson] = process.argv.slice(2);
if (!boxoffice || !rewardsJson || !queriesJson) {
  console.error('usage: node compose.mjs BOXOFFICE_URL REWARDS QUERIES');
  process.exit(2);
}
setTimeout(() => {
  console.error('timed out after 60 s');
  process.exit(1);
}, 60_000).unref();

const rewards = JSON.parse(rewardsJson);
const pointsOf = new Map(rewards.map((reward) => [reward.order, reward.points]));

const loyalty = new ApolloServer({
  schema: buildSubgraphSchema({
    typeDefs: gql`
      extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key"])
      type Query {
        "Orders that earned points, most points first."
        rewards: [Reward!]!
      }
      type Reward {
        points: Int!
        order: Order!
      }
      type Order @key(fields: "id") {
        id: ID!
        "Loyalty points the order earned (0 when none)."
        points: Int!
      }
    `,
    resolvers: {
      Query: {
        rewards: () => [...rewards]
          .sort((a, b) => b.points - a.points)
          .map((reward) => ({ points: reward.points, order: { __typename: 'Order', id: reward.order } })),
      },
      Order: {
        __resolveReference: (order) => ({ id: order.id, points: pointsOf.get(order.id) || 0 }),
      },
    },
  }),
});
const { url: loyaltyUrl } = await startStandaloneServer(loyalty, { listen: { port: 0, host: '127.0.0.1' } });

class Forwarding extends RemoteGraphQLDataSource {
  willSendRequest({ request, context }) {
    if (context && context.authorization) request.http.headers.set('authorization', context.authorization);
  }
}
const gateway = new ApolloServer({
  gateway: new ApolloGateway({
    supergraphSdl: new IntrospectAndCompose({
      subgraphs: [
        { name: 'boxoffice', url: boxoffice },
        { name: 'loyalty', url: loyaltyUrl },
      ],
    }),
    buildService: ({ url }) => new Forwarding({ url }),
  }),
});
const { url: gatewayUrl } = await startStandaloneServer(gateway, {
  listen: { port: 0, host: '127.0.0.1' },
  context: async ({ req }) => ({ authorization: req.headers.authorization }),
});

const answers = [];
try {
  for (const { query, authorization } of JSON.parse(queriesJson)) {
    const headers = { 'content-type': 'application/json' };
    if (authorization) headers.authorization = authorization;
    const response = await fetch(gatewayUrl, { method: 'POST', headers, body: JSON.stringify({ query }) });
    answers.push(await response.json());
  }
} finally {
  await gateway.stop();
  await loyalty.stop();
}
console.log(JSON.stringify({ answers }));
