/**
 * The bounds on CSS values a template may use: the ones a value can make expensive (blur and
 * shadow radii, shadow count, gradient stops, font size, transforms). docs/templates.md lists
 * them for template authors; keep the two together.
 */
export const CSS_BOUNDS = {
  /** Characters in one declaration's value. */
  valueLength: 2000,
  /** Any length, anywhere (px, or its equivalent for absolute units). */
  lengthPx: 10_000,
  fontSizePx: 400,
  fontSizeEm: 10,
  blurPx: 64,
  shadowBlurPx: 100,
  shadowSpreadPx: 100,
  shadows: 4,
  gradients: 4,
  gradientStops: 16,
  filterFunctions: 4,
  transformFunctions: 8,
  scale: 10,
  lineHeight: 10,
  letterSpacingPx: 100,
  borderWidthPx: 200,
  textStrokePx: 20,
  backgroundSizeMinPx: 2,
  polygonPoints: 64,
  lineClamp: 20,
  /** Declarations that draw through a filter (shadows, blur, filter functions) in one template: each costs a pass over its area. */
  effects: 64,
} as const;
