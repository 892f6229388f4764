// `npm run dev`: the one-command demo. The implementation is in dev-demo.mts, as
// tooling is kept in .mts files, which the community-node lint rules leave alone.
await import('./dev-demo.mts');

export {};
