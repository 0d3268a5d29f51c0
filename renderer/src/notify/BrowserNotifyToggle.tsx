import { useState } from 'react';
import { browserNotificationsOn, turnBrowserNotifications } from './browser-notifications';

/** The Settings switch for this browser's notifications; the permission is asked here, at the click. */
export function BrowserNotifyToggle() {
  const [on, setOn] = useState(browserNotificationsOn);
  const [refused, setRefused] = useState(false);
  return (
    <p className="settings-note">
      <label>
        <input
          type="checkbox"
          checked={on}
          onChange={(e) => {
            const wanted = e.currentTarget.checked;
            void turnBrowserNotifications(wanted).then((granted) => {
              setOn(granted);
              setRefused(wanted && !granted);
            });
          }}
        />{' '}
        Notify me in this browser when a plan needs me
      </label>
      {refused && <span role="alert"> The browser did not allow notifications for this page.</span>}
    </p>
  );
}
