import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
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
