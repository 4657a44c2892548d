/**
 * satori's Tailwind engine, in a module of its own so tailwind.ts can load it when first needed
 * (a static import here takes satori's ESM build, the one our patch makes export `twStyles`).
 */
export { twStyles } from "satori/standalone";
