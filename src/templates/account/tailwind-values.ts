/**
 * Tailwind's value syntax, as the class families expanded here rather than by satori's engine
 * read it (tailwind-own-classes.ts, tailwind-composites.ts): the spacing scale, fractions,
 * whole numbers with a unit, arbitrary values in brackets, and a leading `-` that negates.
 */

/** Tailwind's spacing scale: `4` is 1rem (16px); `px` is 1px. */
export function spacing(key: string): string | undefined {
  if (key === "px") return "1px";
  if (!/^\d{1,4}(\.5)?$/.test(key)) return undefined;
  return `${Number(key) * 4}px`;
}

/** `[12px]` → `12px` (underscores are spaces, as in Tailwind); undefined when not bracketed. */
export function arbitrary(key: string): string | undefined {
  const m = /^\[([^\]]+)\]$/.exec(key);
  return m ? m[1]!.replace(/_/g, " ") : undefined;
}

/** `1/2` → `50%`, `full` → `100%` (Tailwind's fractions of the element's own size), or undefined. */
export function fraction(key: string): string | undefined {
  if (key === "full") return "100%";
  const m = /^(\d{1,2})\/(\d{1,2})$/.exec(key);
  if (!m || Number(m[2]) === 0) return undefined;
  return `${Number(((Number(m[1]) / Number(m[2])) * 100).toFixed(6))}%`;
}

/** A whole number of Tailwind's (`45`, `150`), or an arbitrary value; undefined otherwise. */
export function amount(key: string, unit: string): string | undefined {
  return /^\d{1,4}$/.test(key) ? `${key}${unit}` : arbitrary(key);
}

/** `-` before a value Tailwind negates (`-rotate-12`); arbitrary values are negated with calc() there, which the language has not. */
export function negate(value: string, negative: boolean): string | undefined {
  if (!negative) return value;
  if (/^-/.test(value)) return value.slice(1);
  return /^[\d.]/.test(value) ? `-${value}` : undefined;
}
