/**
 * Matches a bounded count reads at most (plus one, to tell "more"): `count=capped`, the v1 list
 * default, answers an exact total up to it and the cap with `totalCapped: true` past it;
 * `count=estimated` counts exactly up to it before it estimates (docs/data-api.md, Counting).
 */
export const COUNT_CAP = 10_000;
