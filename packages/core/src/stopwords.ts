/**
 * Words that carry no topic in a request or a description: what search ignores (search.ts), and the base of what the
 * word vectors ignore (word-vectors.ts), one list for both. Kept short: idf already discounts common words.
 */
export const STOPWORDS = new Set(
  (
    'a an the and or nor but if then than so as of to in on at by for from with without into onto about over ' +
    'is are was were be been being am do does did done doing have has had having can could should would will shall ' +
    'may might must i me my mine myself we us our ours you your yours he him his she her it its they them their ' +
    'this that these those there here what which who whom whose when where why how all any some each every ' +
    'such own same other too very just also only not no yes please ' +
    // conversational filler of requests ("I really need something that...")
    'want wants need needs really actually something anything everything thing things stuff sure maybe ' +
    // the tails of contractions once the apostrophe has split them: I'm, it's, don't, we're, I've, you'll, I'd
    'm s t re ve ll d don doesn didn isn aren wasn weren won wouldn shouldn couldn'
  ).split(' '),
);
