/**
 * The delivered body `{id, event, timestamp, data}`. Built from the stored event row with the
 * stored `data` JSON spliced in verbatim, so every retry sends byte-identical bodies.
 */
import { isoString } from "../clock.ts";

export interface EnvelopeSource {
  id: string;
  type: string;
  /** JSON text of the `data` object, exactly as stored. */
  data: string;
  /** Clock time of the change; becomes `timestamp`. */
  createdAt: number;
}

export function envelopeBody(event: EnvelopeSource): string {
  return `{"id":${JSON.stringify(event.id)},"event":${JSON.stringify(event.type)},"timestamp":${JSON.stringify(isoString(event.createdAt))},"data":${event.data}}`;
}
