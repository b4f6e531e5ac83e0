// A web shop's front-end pays for a visit with the GraphQL client it already uses (issue 37): Apollo Client
// places the order, sends the visitor to Checkout, and reads the order again once Stripe's event confirmed it.
import { ApolloClient, gql, HttpLink, InMemoryCache } from '@apollo/client';
import { describe, expect, it } from 'vitest';
import { basic, upcomingOpenDay, VISITOR } from '../support/museum.ts';
import { paidEvent, sendStripeEvent, sessionOf, usePaidMuseum } from '../support/payments.ts';

const { museum, stripe } = usePaidMuseum();

const PLACE = gql`
  mutation Place($input: PlaceOrderInput!) {
    placeOrder(input: $input) { id orderId status total currency expiresAt checkoutUrl tickets { id status } }
  }
`;
const ORDER = gql`
  query Order($orderId: UUID!) {
    order(orderId: $orderId) { id status checkoutUrl refundedAmount tickets { id status admissionCode } }
  }
`;

const client = () =>
  new ApolloClient({
    cache: new InMemoryCache(),
    link: new HttpLink({
      uri: 'http://museum.test/graphql',
      headers: { authorization: basic(VISITOR.name, VISITOR.password) },
      fetch: (input, init) => museum.fetch(String(input), init as RequestInit),
    }),
  });

describe('Apollo Client, paying through Stripe Checkout', () => {
  it('places a pending order, follows checkoutUrl, and reads it confirmed from the same normalised cache', async () => {
    const apollo = client();
    const placed = await apollo.mutate({
      mutation: PLACE,
      variables: {
        input: {
          email: 'shop@example.com',
          lines: [
            { ticketType: 'general', ticketDate: upcomingOpenDay(5), quantity: 2, category: 'reduced' },
          ],
        },
      },
    });
    const order = (placed.data as any).placeOrder;
    expect(order).toMatchObject({ status: 'pending', total: 28, currency: 'EUR' });
    expect(order.tickets.map((t: { status: string }) => t.status)).toEqual(['pending', 'pending']);
    expect(order.checkoutUrl).toBe(sessionOf(stripe, order.orderId).url);

    // Before payment the tickets have no admission code: the field's error reaches the client.
    const early = await apollo.query({
      query: ORDER,
      variables: { orderId: order.orderId },
      fetchPolicy: 'network-only',
      errorPolicy: 'all',
    });
    expect(early.error?.message).toMatch(/not paid/);

    const paid = paidEvent(stripe, order.orderId);
    expect((await sendStripeEvent(museum, paid)).body.outcome).toBe('confirmed');

    const read = await apollo.query({
      query: ORDER,
      variables: { orderId: order.orderId },
      fetchPolicy: 'network-only',
    });
    const confirmed = (read.data as any).order;
    expect(confirmed).toMatchObject({
      id: order.id,
      status: 'confirmed',
      checkoutUrl: null,
      refundedAmount: 0,
    });
    expect(
      confirmed.tickets.every(
        (t: { status: string; admissionCode: string }) =>
          t.status === 'valid' && t.admissionCode.startsWith('ticket-general-'),
      ),
    ).toBe(true);
    // One Order object in the cache: the mutation's answer now reads as confirmed too.
    const cached = apollo.cache.readFragment({
      id: apollo.cache.identify(order),
      fragment: gql`fragment S on Order { status }`,
    });
    expect(cached).toEqual({ __typename: 'Order', status: 'confirmed' });
  });
});
