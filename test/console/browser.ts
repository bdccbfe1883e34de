import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { expect } from 'chai';
import { generate } from 'otplib';
import type { TestApi } from '../support/system.js';

/**
 * Headless Chromium from Debian (/usr/bin/chromium, installed by .ci/run), driven by playwright-core:
 * no browser download. Screenshots go to var/screenshots/ (ignored by git) for people to look at.
 */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
export const SCREENSHOTS = join(process.cwd(), 'var', 'screenshots');

export const launch = async (): Promise<Browser> => chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, headless: true });

export const shot = async (page: Page, name: string): Promise<void> => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
};

/** A fresh TOTP code for the server's clock (a code is never accepted twice: the clock moves on). */
export const totpFor = async (api: TestApi, secret: string): Promise<string> => {
  api.clock.advance(31_000);
  return generate({ secret, epoch: Math.floor(api.clock.now().getTime() / 1000) });
};

export const signInThroughForm = async (
  page: Page,
  api: TestApi,
  who: { email: string; password: string; totpSecret: string },
): Promise<void> => {
  await page.goto(`${api.base}/console/`);
  await page.fill('#email', who.email);
  await page.fill('#password', who.password);
  await page.fill('#totp', await totpFor(api, who.totpSecret));
  await Promise.all([page.waitForLoadState('load'), page.click('button[type=submit]')]);
};

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core in the page (evaluated through the DevTools protocol: the page's CSP stays as it is): no serious or critical violation. */
export const axeClean = async (p: Page, label: string): Promise<void> => {
  await p.evaluate(AXE);
  const violations = await p.evaluate(async () => {
    const r = await (window as unknown as { axe: { run(c: Document, o: object): Promise<{ violations: any[] }> } }).axe.run(document, {
      resultTypes: ['violations'],
    });
    return r.violations
      .filter((x) => x.impact === 'serious' || x.impact === 'critical')
      .map(
        (x) =>
          `${x.id} (${x.impact}): ${x.nodes.map((n: { target: string[]; html: string; failureSummary?: string }) => `${n.target.join(' ')} ${n.html.slice(0, 120)} ${n.failureSummary ?? ''}`).join(', ')}`,
      );
  });
  expect(violations, `axe on ${label}`).to.deep.equal([]);
};

/**
 * One page checked as every console suite does: axe clean, nothing wider than a phone's screen at 375 px
 * (tables stack, long codes wrap), and — when a folder is given — full-page screenshots at 375 and 1280 px.
 * The page is left at 1280 px.
 */
export const checkPage = async (p: Page, name: string, shots: string | null): Promise<void> => {
  await axeClean(p, name);
  await p.setViewportSize({ width: 375, height: 800 });
  const overflow = await p.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow, `${name}: horizontal overflow at 375 px`).to.be.at.most(0);
  if (shots) {
    mkdirSync(shots, { recursive: true });
    await p.screenshot({ path: join(shots, `${name}-375.png`), fullPage: true });
    await p.setViewportSize({ width: 1280, height: 900 });
    await p.screenshot({ path: join(shots, `${name}-1280.png`), fullPage: true });
  }
  await p.setViewportSize({ width: 1280, height: 900 });
};
