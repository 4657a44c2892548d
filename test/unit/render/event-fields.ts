/** Every text field of the built-in event card, filled as a real event would: the render tests' full card. */
export const EVENT_FIELDS = {
  title: "Bun Meetup Berlin: Fast JavaScript Everywhere",
  subtitle: "An evening of talks on runtimes and bundlers",
  date: "Thursday, March 14, 2025",
  time: "18:30 CET",
  location: "Factory Görlitzer Park, Berlin",
  speaker_name: "Jarred Sumner",
} as const;
